#include "dls/eval/sentence_translation.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <istream>
#include <ostream>
#include <stdexcept>

#include <spdlog/fmt/fmt.h>
#include <torch/torch.h>

#include "dls/data/languages.h"
#include "dls/data/normalize.h"
#include "dls/util/file_io.h"
#include "dls/util/heat_map.h"
#include "dls/util/json.h"
#include "dls/util/progress.h"

namespace dls::eval {

namespace fs = std::filesystem;

namespace {

constexpr std::size_t kUnknownLinesShown = 5;  // --input: lines whose unknown words are listed
constexpr std::size_t kNoteLinesShown = 5;     // --input: lines whose note is shown

// `checkpoint`: the file translated with.
std::string translation_json(const SentenceTranslation& t, const std::string& checkpoint) {
  util::JsonWriter json;
  json.begin_object().key("input").value(t.input);
  if (t.ok()) {
    json.key("normalised").value(data::join_words(t.words)).key("unknown_words").begin_array();
    for (const auto& w : t.unknown) json.value(w);
    json.end_array().key("translation").value(t.text).key("raw").value(t.raw);
    json.key("log_probability").value(t.log_probability);
    if (!t.note.empty()) json.key("note").value(t.note);
  } else {
    json.key("error").value(t.error);
  }
  json.key("checkpoint").value(checkpoint);
  json.end_object();
  return json.str();
}

// The one line written for `t`: its JSON object, its translation, or "" when it failed.
std::string output_line(const SentenceTranslation& t, const TranslateRequest& request, const std::string& checkpoint) {
  if (request.json) return translation_json(t, checkpoint);
  if (!t.ok()) return "";
  return request.raw ? t.raw : t.text;
}

// Translates one batch of lines read from the --input file and writes a line for each.
class FileTranslation {
 public:
  FileTranslation(Translator& translator, const TranslateRequest& request, std::ostream& out, std::ostream& messages)
      : translator_(translator), request_(request), out_(out), messages_(messages) {}

  // `lines` start at line number `first_line` (1-based).
  void translate(const std::vector<std::string>& lines, std::size_t first_line) {
    // An empty line is one the model cannot translate: its output line stays empty.
    auto results = translator_.translate(lines, request_.decode);
    for (std::size_t i = 0; i < results.size(); ++i) {
      const auto line = first_line + i;
      const auto& t = results[i];
      if (!t.ok()) {
        ++failures_;
        const bool blank = lines[i].find_first_not_of(" \t\r") == std::string::npos;
        messages_ << "line " << line << ": " << (blank ? "empty, left empty" : "error: " + t.error) << "\n";
      } else if (!t.unknown.empty() && ++unknown_lines_ <= kUnknownLinesShown) {
        messages_ << "line " << line << ": unknown words (translated as <unk>): " << data::join_words(t.unknown)
                  << "\n";
      }
      if (!t.note.empty() && ++note_lines_ <= kNoteLinesShown)
        messages_ << "line " << line << ": note: " << t.note << "\n";
      out_ << output_line(t, request_, translator_.checkpoint_file()) << "\n";
    }
    out_.flush();
    if (!out_) throw std::runtime_error("cannot write the translations (disk full?)");
  }

  std::size_t failures() const { return failures_; }
  std::size_t unknown_lines() const { return unknown_lines_; }
  std::size_t note_lines() const { return note_lines_; }

 private:
  Translator& translator_;
  const TranslateRequest& request_;
  std::ostream& out_;
  std::ostream& messages_;
  std::size_t failures_ = 0;
  std::size_t unknown_lines_ = 0;
  std::size_t note_lines_ = 0;  // longer than the model was trained on
};

std::size_t count_lines(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::size_t lines = 0;
  std::string line;
  while (std::getline(in, line)) ++lines;
  return lines;
}

// --input: every line of `in` translated into `out`, a batch at a time, with a progress line.
std::size_t translate_lines(Translator& translator, const TranslateRequest& request, std::istream& in,
                            std::int64_t total, std::ostream& out, std::ostream& messages) {
  FileTranslation translation(translator, request, out, messages);
  util::ProgressOptions progress_options;
  progress_options.unit = "sentences";
  util::ProgressBar progress(total, "translate", progress_options);
  const auto batch = static_cast<std::size_t>(std::max<std::int64_t>(1, request.decode.batch_size));
  std::vector<std::string> lines;
  std::size_t done = 0;
  const auto flush = [&] {
    translation.translate(lines, done + 1);
    done += lines.size();
    lines.clear();
    progress.update(static_cast<std::int64_t>(done));
  };
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(std::move(line));
    if (lines.size() == batch) flush();
  }
  if (!lines.empty()) flush();
  progress.finish();
  if (translation.unknown_lines() > kUnknownLinesShown) {
    messages << translation.unknown_lines() << " lines had unknown words (the first " << kUnknownLinesShown
             << " are listed above)\n";
  }
  if (translation.note_lines() > kNoteLinesShown) {
    messages << translation.note_lines() << " lines were longer than the model was trained on (the first "
             << kNoteLinesShown << " are noted above)\n";
  }
  messages << "translated " << done - translation.failures() << " of " << done << " lines\n";
  return translation.failures();
}

// --input's file ("-": none), opened before any work; refused when --output would replace it.
std::ifstream open_input(const TranslateRequest& request) {
  std::ifstream file;
  if (request.input_file == "-") return file;
  file.open(request.input_file, std::ios::binary);
  if (!file) throw std::runtime_error(request.input_file + ": cannot open (--input)");
  std::error_code error;
  if (!request.output_file.empty() && request.output_file != "-" &&
      fs::equivalent(request.input_file, request.output_file, error)) {
    throw std::runtime_error(request.output_file + ": --output is the --input file; write the translations elsewhere");
  }
  return file;
}

std::size_t translate_file(Translator& translator, const TranslateRequest& request, std::istream& in, std::ostream& out,
                           std::ostream& messages) {
  const auto total =
      request.input_file == "-" ? std::int64_t{0} : static_cast<std::int64_t>(count_lines(request.input_file));
  if (request.output_file.empty() || request.output_file == "-") {
    return translate_lines(translator, request, in, total, out, messages);
  }
  // Written whole or not at all: a killed or failed run leaves no half-written file behind.
  std::size_t failures = 0;
  util::write_file_atomically(request.output_file, [&](const std::string& tmp) {
    std::ofstream file_out(tmp, std::ios::binary);
    if (!file_out) throw std::runtime_error(request.output_file + ": cannot write (--output)");
    failures = translate_lines(translator, request, in, total, file_out, messages);
  });
  messages << "wrote " << request.output_file << "\n";
  return failures;
}

}  // namespace

std::vector<std::string> save_attention_maps(const TranslationAttention& maps, const std::string& dir) {
  fs::create_directories(dir);
  std::vector<std::string> written;
  const auto save = [&](const std::vector<torch::Tensor>& layers, const std::string& name,
                        const std::vector<std::string>& rows, const std::vector<std::string>& cols) {
    for (std::size_t layer = 0; layer < layers.size(); ++layer) {
      const auto weights = layers[layer].to(torch::kDouble).contiguous();  // [H, r, c]
      const auto r = weights.size(1), c = weights.size(2);
      for (std::int64_t head = 0; head < weights.size(0); ++head) {
        const auto m = weights[head].contiguous();
        std::vector<double> values(m.data_ptr<double>(), m.data_ptr<double>() + r * c);
        const auto path = (fs::path(dir) / fmt::format("{}_layer{}_head{}.png", name, layer + 1, head + 1)).string();
        util::HeatMap(values, static_cast<int>(r), static_cast<int>(c))
            .title(fmt::format("{}, layer {}, head {}", name, layer + 1, head + 1))
            .row_labels(std::vector<std::string>(rows.begin(), rows.begin() + r))
            .col_labels(std::vector<std::string>(cols.begin(), cols.begin() + c))
            .y_label("query")
            .x_label("key")
            .save(path);
        written.push_back(path);
      }
    }
  };
  save(maps.encoder_self, "encoder_self", maps.source, maps.source);
  save(maps.decoder_self, "decoder_self", maps.target, maps.target);
  save(maps.cross, "cross", maps.target, maps.source);
  return written;
}

std::size_t translate_sentences(const std::string& checkpoint_or_run, const TranslateRequest& request,
                                std::istream& input, std::ostream& out, std::ostream& messages) {
  auto input_file = request.input_file.empty() ? std::ifstream() : open_input(request);
  auto translator = Translator::load(checkpoint_or_run, request.translator);
  const auto& model = translator.model().info;
  messages << "translating with " << translator.checkpoint_file() << " ("
           << checkpoint::progress_summary(model.progress) << "; " << model.settings.model.summary() << ")\n";
  if (!request.input_file.empty()) {
    return translate_file(translator, request, request.input_file == "-" ? input : input_file, out, messages);
  }

  std::size_t failures = 0;
  bool first = true;
  const auto handle = [&](const std::vector<std::string>& sentences) {
    for (const auto& t : translator.translate(sentences, request.decode)) {
      if (!t.ok()) {
        ++failures;
        messages << "error: \"" << t.input << "\": " << t.error << "\n";
        if (request.json) out << translation_json(t, translator.checkpoint_file()) << std::endl;
        first = false;
        continue;
      }
      if (!t.unknown.empty())
        messages << "unknown words (translated as <unk>): " << data::join_words(t.unknown) << "\n";
      if (!t.note.empty()) messages << "note: " << t.note << "\n";
      out << output_line(t, request, translator.checkpoint_file()) << std::endl;
      if (first && !request.attention_maps_dir.empty()) {
        const auto files = save_attention_maps(translator.attention(t), request.attention_maps_dir);
        messages << "wrote " << files.size() << " attention maps to " << request.attention_maps_dir << "\n";
      }
      first = false;
    }
  };
  if (!request.sentences.empty()) handle(request.sentences);
  // "english> " for DLStudio's English -> Spanish: the source language's name.
  const std::string prompt = data::language_label(translator.model().info.settings.data.source_language()) + "> ";
  if (request.interactive) {
    std::string line;
    while (true) {
      if (request.prompt) messages << prompt << std::flush;
      if (!std::getline(input, line)) break;
      if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
      handle({line});
    }
  }
  return failures;
}

}  // namespace dls::eval

#include "dls/report/sentence_translation.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iostream>

#include <filesystem>
#include <istream>
#include <ostream>
#include <memory>
#include <optional>
#include <utility>

#include <spdlog/fmt/fmt.h>
#include <torch/torch.h>

#include "dls/data/languages.h"
#include "dls/data/normalize.h"
#include "dls/layers/int8_linear.h"
#include "dls/util/heat_map.h"
#include "dls/util/utf8.h"
#include "dls/util/create_folder.h"
#include "report/file_translation.h"

namespace dls::report {

namespace fs = std::filesystem;

std::vector<std::string> save_attention_maps(const TranslationAttention& maps, const std::string& dir) {
  util::create_folder(dir);
  std::vector<std::string> written;
  // A layer whose rows give more than this to keys not drawn gets a last column with that
  // weight, "(rest)", so that every row of its pictures sums to 1 as the model's does.
  constexpr double kShownRest = 0.005;
  const auto save = [&](const std::vector<torch::Tensor>& layers, const std::vector<torch::Tensor>& rests,
                        const std::string& name, const std::vector<std::string>& rows,
                        const std::vector<std::string>& cols, const std::string& row_axis,
                        const std::string& col_axis) {
    for (std::size_t layer = 0; layer < layers.size(); ++layer) {
      auto weights = layers[layer].to(torch::kDouble);  // [H, r, c]
      const auto r = weights.size(1), c = weights.size(2);
      auto col_labels = std::vector<std::string>(cols.begin(), cols.begin() + c);
      const bool rest = layer < rests.size() && rests[layer].max().item<double>() > kShownRest;
      if (rest) {
        weights = torch::cat({weights, rests[layer].to(torch::kDouble).unsqueeze(2)}, 2);  // [H, r, c+1]
        col_labels.push_back("(rest)");
      }
      weights = weights.contiguous();
      const auto width = weights.size(2);
      for (std::int64_t head = 0; head < weights.size(0); ++head) {
        const auto m = weights[head].contiguous();
        std::vector<double> values(m.data_ptr<double>(), m.data_ptr<double>() + r * width);
        const auto path = (fs::path(dir) / fmt::format("{}_layer{}_head{}.png", name, layer + 1, head + 1)).string();
        util::HeatMap(values, static_cast<int>(r), static_cast<int>(width))
            .title(fmt::format("{}, layer {}, head {}{}", name, layer + 1, head + 1,
                               rest ? " (rest: keys not drawn, padding or zeroed)" : ""))
            .row_labels(std::vector<std::string>(rows.begin(), rows.begin() + r))
            .col_labels(col_labels)
            .y_label(row_axis)
            .x_label(col_axis)
            .save(path);
        written.push_back(path);
      }
    }
  };
  save(maps.encoder_self, maps.encoder_self_rest, "encoder_self", maps.source, maps.source, "query", "key");
  // A decoder row is a decoding step, named by the token it writes; its keys are the tokens read.
  const std::string step = "step (the token it writes)";
  save(maps.decoder_self, maps.decoder_self_rest, "decoder_self", maps.written, maps.target, step,
       "key (the tokens read: SOS, then the translation)");
  // An RNN's one map is the notes' alignment table: alignment_layer1_head1.png.
  save(maps.cross, maps.cross_rest, maps.recurrent ? "alignment" : "cross", maps.written, maps.source, step,
       "key (the source tokens)");
  return written;
}

namespace {

// A sentence as a message quotes it: whole when it is short and valid UTF-8, else its start
// and its size, so that a megabyte line (or its invalid bytes) is not written back.
std::string quoted_sentence(const std::string& sentence) {
  constexpr int kColumns = 60;
  if (!util::is_valid_utf8(sentence)) return "a sentence of " + std::to_string(sentence.size()) + " bytes";
  if (util::display_width(sentence) <= kColumns) return "\"" + sentence + "\"";
  return "\"" + util::truncate_to_width(sentence, kColumns) + "...\" (" + std::to_string(sentence.size()) + " bytes)";
}

// The maps grow with the square of the length (900 words: 3 GB and minutes, 2.7 MB a PNG):
// drawn, as the server's /attention draws them, for what the model translates whole at most.
void check_map_length(const Translator& translator, const std::string& sentence) {
  const auto tokens = translator.count_source_tokens(sentence);
  const auto longest = static_cast<std::size_t>(Translator::kWholeSentenceFactor * translator.max_source_tokens());
  if (tokens > longest) {
    throw std::runtime_error("--attention-maps: the first sentence has " + std::to_string(tokens) +
                             " tokens; attention maps are drawn for up to " + std::to_string(longest) + " (" +
                             std::to_string(Translator::kWholeSentenceFactor) +
                             " times what the model was trained on); translate it without --attention-maps");
  }
}

// translate_sentences with the model loaded (and --input/--output opened: `files`).
std::size_t translate_with(Translator translator, std::optional<TranslationFiles>& files,
                           const TranslateRequest& request, std::istream& input, std::ostream& out,
                           std::ostream& messages) {
  translator.check_decoding(request.decode);
  if (!request.attention_maps_dir.empty() && !request.sentences.empty()) {
    check_map_length(translator, request.sentences.front());
  }
  const auto& model = translator.model().info;
  messages << "translating with " << translator.checkpoint_file() << " (" << checkpoint::progress_summary(model) << "; "
           << model.settings.model_summary() << (int8_linear_enabled() ? "; int8 linear layers" : "") << ")\n";
  if (files) return translate_file(translator, request, *files, out, messages);

  std::size_t failures = 0;
  std::size_t number = 0;  // of the sentence, from 0: the n-best lists' first field
  bool first = true;
  // Where a message's sentence came from: "sentence 2: " (one of several on the command line),
  // "line 7: " (read), "" (the one sentence given).
  const auto handle = [&](const std::vector<std::string>& sentences, const std::string& one_line) {
    if (first && !request.attention_maps_dir.empty() && !sentences.empty()) {
      check_map_length(translator, sentences[0]);  // --interactive's first line
    }
    std::size_t index = 0;
    for (const auto& t : translator.translate(sentences, request.decode)) {
      const auto this_number = number++;
      const std::string where = !one_line.empty()      ? one_line
                                : sentences.size() > 1 ? "sentence " + std::to_string(++index) + ": "
                                                       : "";
      if (!t.ok()) {
        // Its line all the same (empty in text), so that outputs line up with the sentences given;
        // a blank one is left empty, as in --input, and is not an error.
        if (copied_through(t)) {
          messages << where << "note: " << quoted_sentence(t.input) << ": " << kCopiedNote << "\n";
        } else if (!blank_line(t.input)) {
          ++failures;
          messages << where << "error: " << quoted_sentence(t.input) << ": " << t.error << "\n";
        }
        write_standard_output(out, output_lines(t, this_number, {}, request, translator.checkpoint_file()));
        first = false;
        continue;
      }
      if (!t.unknown.empty()) messages << where << unknown_words_note(t.unknown) << "\n";
      if (!t.note.empty()) messages << where << "note: " << t.note << "\n";
      const auto alignment = request.alignments ? translator.alignment(t) : std::vector<AlignmentPoint>{};
      write_standard_output(out, output_lines(t, this_number, alignment, request, translator.checkpoint_file()));
      if (first && !request.attention_maps_dir.empty()) {
        const auto files = save_attention_maps(translator.attention(t), request.attention_maps_dir);
        messages << "wrote " << files.size() << " attention maps to " << request.attention_maps_dir << "\n";
      }
      first = false;
    }
  };
  if (!request.sentences.empty()) handle(request.sentences, "");
  // "english> " for DLStudio's English -> Spanish: the source language's name.
  const std::string prompt = data::language_label(translator.model().info.settings.data.source_language()) + "> ";
  if (request.interactive) {
    // A closed standard input (`<&-`) would end at once, as an empty one does.
    if (&input == &std::cin && ::fcntl(STDIN_FILENO, F_GETFD) < 0) {
      throw std::runtime_error(std::string("--interactive: standard input cannot be read (") + std::strerror(errno) +
                               ")");
    }
    std::string line;
    for (std::size_t line_number = 1;; ++line_number) {
      if (request.prompt) messages << prompt << std::flush;
      if (!std::getline(input, line)) break;
      if (!line.empty() && line.back() == '\r') line.pop_back();
      handle({line},
             "line " + std::to_string(line_number) + ": ");  // a blank line too: one output line for every line read
    }
  }
  return failures;
}

}  // namespace

std::size_t translate_sentences(const std::string& checkpoint_or_run, const TranslateRequest& request,
                                std::istream& input, std::ostream& out, std::ostream& messages) {
  // --input/--output checked and opened before the model is loaded.
  std::optional<TranslationFiles> files;
  if (!request.input_file.empty()) files.emplace(request, input);
  return translate_with(Translator::load(checkpoint_or_run, request.translator), files, request, input, out, messages);
}

std::size_t translate_sentences(std::unique_ptr<checkpoint::CheckpointReader> checkpoint,
                                const TranslateRequest& request, std::istream& input, std::ostream& out,
                                std::ostream& messages) {
  std::optional<TranslationFiles> files;  // checked and opened before the model is loaded
  if (!request.input_file.empty()) files.emplace(request, input);
  auto translator = Translator::load(*checkpoint, request.translator);
  checkpoint.reset();  // its weights are the model's now
  return translate_with(std::move(translator), files, request, input, out, messages);
}

}  // namespace dls::report

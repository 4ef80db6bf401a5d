#include "report/file_translation.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <functional>
#include <iostream>
#include <istream>
#include <ostream>
#include <stdexcept>
#include <utility>
#include <vector>

#include <spdlog/fmt/fmt.h>

#include "dls/data/normalize.h"
#include "dls/eval/word_alignment.h"
#include "dls/util/json.h"
#include "dls/util/progress.h"
#include "dls/util/utf8.h"

namespace dls::report {

using eval::alignment_text;

namespace {

constexpr std::size_t kUnknownLinesShown = 5;  // lines whose unknown words are listed
constexpr std::size_t kNoteLinesShown = 5;     // lines whose note is shown

// `checkpoint`: the file translated with.
std::string translation_json(const SentenceTranslation& t, const std::vector<AlignmentPoint>& alignment,
                             const TranslateRequest& request, const std::string& checkpoint) {
  util::JsonWriter json;
  json.begin_object().field("input", t.input);
  if (t.ok()) {
    json.field("normalised", data::join_words(t.words)).key("unknown_words").begin_array();
    for (const auto& w : t.unknown) json.value(w);
    json.end_array().field("translation", t.text).field("raw", t.raw);
    json.field("log_probability", t.log_probability);
    if (!t.note.empty()) json.field("note", t.note);
    if (request.decode.n_best > 1) {
      json.key("n_best").begin_array();
      for (const auto& a : t.n_best) {
        json.begin_object().field("translation", a.text).field("raw", a.raw);
        json.field("log_probability", a.log_probability).end_object();
      }
      json.end_array();
    }
    if (request.alignments) json.field("alignment", alignment_text(alignment));
  } else if (blank_line(t.input)) {  // left empty as in the text output, not a failure
    json.field("translation", "").field("raw", "");
  } else if (copied_through(t)) {
    json.field("translation", t.input).field("raw", "").field("note", kCopiedNote);
  } else {
    json.field("error", t.error);
  }
  json.field("checkpoint", checkpoint);
  json.end_object();
  return json.str();
}

// Where a batch's output lines go; throws when they cannot be written.
using LineSink = std::function<void(const std::string& text)>;

// Translates one batch of input lines at a time, writing a line for each.
class FileTranslation {
 public:
  FileTranslation(Translator& translator, const TranslateRequest& request, LineSink sink, std::ostream& messages)
      : translator_(translator), request_(request), sink_(std::move(sink)), messages_(messages) {}

  // `lines` start at line number `first_line` (1-based).
  void translate(const std::vector<std::string>& lines, std::size_t first_line) {
    // A blank line is one the model cannot translate: its output line stays empty.
    const auto results = translator_.translate(lines, request_.decode);
    std::string text;
    for (std::size_t i = 0; i < results.size(); ++i) {
      const auto line = first_line + i;
      const auto& t = results[i];
      if (!t.ok() && blank_line(lines[i])) {
        ++blank_;
        messages_ << "line " << line << ": empty, left empty\n";
      } else if (copied_through(t)) {
        if (++copied_ <= kNoteLinesShown) messages_ << "line " << line << ": " << kCopiedNote << "\n";
      } else if (!t.ok()) {
        ++failures_;
        messages_ << "line " << line << ": error: " << t.error << "\n";
      } else if (!t.unknown.empty() && ++unknown_lines_ <= kUnknownLinesShown) {
        messages_ << "line " << line << ": " << unknown_words_note(t.unknown) << "\n";
      }
      if (!t.note.empty() && ++note_lines_ <= kNoteLinesShown)
        messages_ << "line " << line << ": note: " << t.note << "\n";
      const auto alignment = request_.alignments && t.ok() ? translator_.alignment(t) : std::vector<AlignmentPoint>{};
      text += output_lines(t, line - 1, alignment, request_, translator_.checkpoint_file());
    }
    sink_(text);
  }

  std::size_t failures() const { return failures_; }
  std::size_t blank_lines() const { return blank_; }
  std::size_t copied_lines() const { return copied_; }
  std::size_t unknown_lines() const { return unknown_lines_; }
  std::size_t note_lines() const { return note_lines_; }

 private:
  Translator& translator_;
  const TranslateRequest& request_;
  LineSink sink_;
  std::ostream& messages_;
  std::size_t failures_ = 0;
  std::size_t blank_ = 0;
  std::size_t copied_ = 0;  // no words to translate
  std::size_t unknown_lines_ = 0;
  std::size_t note_lines_ = 0;  // longer than the model was trained on
};

// Every line of the input translated into `sink`, a batch at a time, with a progress line: in
// bytes of a regular file (its size known before reading), in sentences of anything else.
std::size_t translate_lines(Translator& translator, const TranslateRequest& request, TranslationFiles& files,
                            LineSink sink, std::ostream& messages) {
  FileTranslation translation(translator, request, std::move(sink), messages);
  const bool by_bytes = files.input_size() > 0;
  util::ProgressOptions progress_options;
  progress_options.unit = by_bytes ? "bytes" : "sentences";
  util::ProgressBar progress(files.input_size(), "translate", progress_options);
  const auto batch = static_cast<std::size_t>(std::max<std::int64_t>(1, request.decode.batch_size));
  std::vector<std::string> lines;
  std::size_t done = 0;
  std::int64_t bytes = 0;
  const auto flush = [&] {
    translation.translate(lines, done + 1);
    done += lines.size();
    lines.clear();
    const util::ProgressFields fields = {{"sentences", std::to_string(done)}};
    progress.update(by_bytes ? std::min(bytes, files.input_size()) : static_cast<std::int64_t>(done),
                    by_bytes ? fields : util::ProgressFields{});
  };
  auto& in = files.input();
  for (std::string line; std::getline(in, line);) {
    if (bytes == 0 && (line.rfind("\xFF\xFE", 0) == 0 || line.rfind("\xFE\xFF", 0) == 0)) {
      // Every line would fail as not UTF-8, and the NUL after the last newline make a line.
      throw std::runtime_error(files.input_name() +
                               ": UTF-16 text (its byte-order mark), not UTF-8; convert it first: iconv -f UTF-16 -t "
                               "UTF-8");
    }
    bytes += static_cast<std::int64_t>(line.size()) + 1;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(std::move(line));
    if (lines.size() == batch) flush();
  }
  if (in.bad())
    throw std::runtime_error(files.input_name() + ": read error (--input), after " + std::to_string(done) + " lines");
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
  messages << "translated " << done - translation.failures() - translation.blank_lines() - translation.copied_lines()
           << " of " << done << " lines";
  std::vector<std::string> kept;  // the lines not translated, by design or failing
  if (translation.failures() > 0) {
    kept.push_back(std::to_string(translation.failures()) + " could not be (their errors above)");
  }
  if (translation.blank_lines() > 0) kept.push_back(std::to_string(translation.blank_lines()) + " blank, left empty");
  if (translation.copied_lines() > 0) {
    kept.push_back(std::to_string(translation.copied_lines()) + " without words, copied as they are");
  }
  for (std::size_t i = 0; i < kept.size(); ++i) messages << (i == 0 ? " (" : "; ") << kept[i];
  if (!kept.empty()) messages << ")";
  messages << "\n";
  return translation.failures();
}

}  // namespace

void write_standard_output(std::ostream& out, const std::string& text) {
  errno = 0;
  out << text << std::flush;
  if (!out) {
    throw std::runtime_error(std::string("standard output: cannot write (") +
                             (errno != 0 ? std::strerror(errno) : "stream error") + ")");
  }
}

bool blank_line(const std::string& line) {
  if (line.find_first_not_of(" \t\r") == std::string::npos) return true;  // the common case, bytes alone
  if (!util::is_valid_utf8(line)) return false;
  for (const auto code_point : util::decode_utf8(line)) {
    const auto category = util::char_category(code_point);
    if (category != util::CharCategory::kSeparator && category != util::CharCategory::kControl &&
        category != util::CharCategory::kFormat)
      return false;
  }
  return true;
}

std::string unknown_words_note(const std::vector<std::string>& unknown) {
  constexpr std::size_t kShown = 10;
  std::vector<std::string> distinct;
  for (const auto& word : unknown) {
    if (std::find(distinct.begin(), distinct.end(), word) == distinct.end()) distinct.push_back(word);
    if (distinct.size() > kShown) break;
  }
  const bool more = distinct.size() > kShown;
  if (more) distinct.resize(kShown);
  std::string note = "unknown words (translated as <unk>): " + data::join_words(distinct);
  if (more || unknown.size() > distinct.size()) note += " (" + std::to_string(unknown.size()) + " in all)";
  return note;
}

bool copied_through(const SentenceTranslation& t) {
  return !t.ok() && t.error == eval::kNoWordsError && !blank_line(t.input);
}

std::string output_lines(const SentenceTranslation& t, std::size_t number, const std::vector<AlignmentPoint>& alignment,
                         const TranslateRequest& request, const std::string& checkpoint) {
  if (request.json) return translation_json(t, alignment, request, checkpoint) + "\n";
  if (copied_through(t)) {
    if (request.decode.n_best > 1) return std::to_string(number) + " ||| " + t.input + " ||| 0.0000\n";
    return t.input + (request.alignments ? " ||| " : "") + "\n";
  }
  if (!t.ok()) return request.decode.n_best > 1 ? "" : "\n";
  if (request.decode.n_best > 1) {
    std::string lines;
    for (const auto& a : t.n_best) {
      lines += std::to_string(number) + " ||| " + (request.raw ? a.raw : a.text) + " ||| " +
               fmt::format("{:.4f}", a.log_probability) + "\n";
    }
    return lines;
  }
  return (request.raw ? t.raw : t.text) + (request.alignments ? " ||| " + alignment_text(alignment) : "") + "\n";
}

TranslationFiles::TranslationFiles(const TranslateRequest& request, std::istream& standard_input)
    : input_name_(request.input_file) {
  if (!request.output_file.empty() && request.output_file != "-")
    output_ = util::check_output_file(request.output_file);
  if (request.input_file == "-") {
    // A closed standard input (`<&-`) reads as an empty file: 0 of 0 lines, exit 0.
    if (&standard_input == &std::cin && ::fcntl(STDIN_FILENO, F_GETFD) < 0) {
      throw std::runtime_error(std::string("--input -: standard input cannot be read (") + std::strerror(errno) + ")");
    }
    input_ = &standard_input;
    return;
  }
  struct stat status {};
  if (::stat(request.input_file.c_str(), &status) == 0) {
    if (S_ISDIR(status.st_mode))
      throw std::runtime_error(request.input_file + ": is a directory; --input takes a file");
    if (S_ISREG(status.st_mode)) input_size_ = static_cast<std::int64_t>(status.st_size);
    std::error_code error;
    if (S_ISREG(status.st_mode) && output_ && std::filesystem::equivalent(request.input_file, output_->path, error)) {
      throw std::runtime_error(request.output_file +
                               ": --output is the --input file; write the translations elsewhere");
    }
  }
  // A FIFO waits here for its writer, as it does for `cat`.
  file_.open(request.input_file, std::ios::binary);
  if (!file_) {
    throw std::runtime_error(request.input_file + ": cannot open --input (" + std::strerror(errno) + ")");
  }
  input_ = &file_;
}

std::size_t translate_file(Translator& translator, const TranslateRequest& request, TranslationFiles& files,
                           std::ostream& out, std::ostream& messages) {
  if (!files.output()) {
    return translate_lines(
        translator, request, files, [&out](const std::string& text) { write_standard_output(out, text); }, messages);
  }
  std::size_t failures = 0;
  util::write_output_file(*files.output(), [&](util::FileWriter& writer) {
    failures = translate_lines(
        translator, request, files,
        [&writer](const std::string& text) {
          if (!writer.write(text.data(), text.size())) throw std::runtime_error(writer.error());
        },
        messages);
  });
  messages << "wrote " << request.output_file << "\n";
  return failures;
}

}  // namespace dls::report

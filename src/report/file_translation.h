// translate_sentences' file mode (checkpoint_eval --input FILE --output FILE): both files
// checked and opened before the model is loaded, so that a refusal costs nothing and writes
// nothing; then the input, read once as it streams (a pipe, a FIFO and /dev/stdin are read
// as files are), translated a batch at a time into exactly one output line per input line.
#pragma once

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "dls/report/sentence_translation.h"
#include "dls/util/output_file.h"

namespace dls::report {

using eval::AlignmentPoint;
using eval::SentenceTranslation;
using eval::Translator;

// What is written for `t`, sentence `number` (0-based), newline included, in every mode: its
// JSON object (naming `checkpoint`, the file translated with; "n_best" and "alignment" when
// asked), its translation (" ||| " and `alignment`'s pairs after it with --alignments), or an
// empty line when it failed (the line itself when it has no words: copied_through()); with
// --n-best N, a line "number ||| translation ||| log p" for each of its n best (none when it
// failed; the line itself, log p 0, when copied), as Moses and Marian write n-best lists.
std::string output_lines(const SentenceTranslation& t, std::size_t number, const std::vector<AlignmentPoint>& alignment,
                         const TranslateRequest& request, const std::string& checkpoint);

// `text` written to standard output (`out`) and flushed; throws "standard output: cannot write
// (<reason>)" when it was not (a full disk, a closed descriptor).
void write_standard_output(std::ostream& out, const std::string& text);

// Whether `line` holds nothing but spaces (ASCII or Unicode's: a no-break space), tabs, a
// carriage return or zero-width characters: left empty, not an error.
bool blank_line(const std::string& line);

// A line with no words to translate but something to keep ("* * *", "...", an emoji): copied to
// the output as it is, not an error, as a document's separators and marks must survive.
bool copied_through(const SentenceTranslation& t);
// "unknown words (translated as <unk>): a b c", the first ten distinct ones and how many more:
// a megabyte line of unknown words was written back whole.
std::string unknown_words_note(const std::vector<std::string>& unknown);
inline constexpr const char* kCopiedNote = "no words to translate, copied as it is";

// --input and --output of `request`, ready before any work.
class TranslationFiles {
 public:
  // Throws (one line naming the file) when the output cannot be written
  // (util::check_output_file) or is the input, or when the input is a directory or cannot be
  // opened. The output is checked first: an unwritable one is refused without waiting for a
  // FIFO's writer. "-" as input reads `standard_input`.
  TranslationFiles(const TranslateRequest& request, std::istream& standard_input);

  std::istream& input() { return *input_; }
  const std::string& input_name() const { return input_name_; }
  // A regular input file's size in bytes (the progress line's total); 0 for pipes, FIFOs and
  // terminals, whose length is known only at their end.
  std::int64_t input_size() const { return input_size_; }
  // The file to write; none: standard output.
  const std::optional<util::OutputFile>& output() const { return output_; }

 private:
  std::ifstream file_;
  std::istream* input_ = nullptr;
  std::string input_name_;
  std::int64_t input_size_ = 0;
  std::optional<util::OutputFile> output_;
};

// Translates every line of `files`' input, writing one line each to its output (or to `out`)
// and the per-line reports and a summary to `messages`. Returns the number of lines that could
// not be translated; blank lines are left empty by design and are not counted. Write errors
// name the file and the system's reason.
std::size_t translate_file(Translator& translator, const TranslateRequest& request, TranslationFiles& files,
                           std::ostream& out, std::ostream& messages);

}  // namespace dls::report

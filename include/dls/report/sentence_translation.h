// checkpoint_eval's translation modes over eval::Translator: --translate (sentences given),
// --interactive (typed lines), --input/--output (a file, one translation per line), and the
// attention heat maps of one translation (--attention-maps).
#pragma once

#include <cstddef>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include "dls/eval/translator.h"

namespace dls::report {

using eval::DecodeOptions;
using eval::TranslationAttention;
using eval::TranslatorOptions;

struct TranslateRequest {
  std::vector<std::string> sentences;  // --translate, in order
  bool interactive = false;            // then one sentence per line of `input`, blank lines skipped
  bool prompt = false;                 // interactive: "english> " on `messages` before each line
  // Whether `input` is a terminal. `translate` with no sentence, --input or --interactive reads
  // `input` as --input - when it is not (text piped in, as Marian and fairseq-interactive read
  // it); at a terminal it asks for one of them.
  bool input_is_terminal = true;
  // --input: every line of this file ("-": `input`; a pipe, FIFO or /dev/stdin too, read
  // once) translated, exactly one line written to `output_file` ("-" or empty: `out`) per line
  // read; a blank or untranslatable line gives an empty line and a message naming its line
  // number. Both files are checked before the model is loaded; `output_file` is written whole
  // or not at all (util::write_output_file).
  std::string input_file;
  std::string output_file;
  bool raw = false;         // lowercase words as the model writes and BLEU scores them, not the display form
  DecodeOptions decode;     // n_best > 1: n-best lists (file_translation.h's output_lines says how they are written)
  bool alignments = false;  // each translation's word alignment (Translator::alignment), "0-0 1-2 ..."
  std::string attention_maps_dir;  // non-empty: heat maps of the first sentence's translation
  bool json = false;               // one JSON object per sentence (a line each)
  TranslatorOptions translator;    // device, weights
};

// Translates with `checkpoint_or_run`: a seq2seq checkpoint, or a run directory's best.pt, else
// its newest checkpoint (Translator::load, the rule translate_server follows too), named on
// `messages` with its epoch and validation scores ("translating with runs/x/best.pt (epoch 3,
// validation BLEU 0.210, loss 2.31; FG/dlstudio M=256 ...)") and in each JSON object. Unknown
// words are reported on `messages` and become <unk>; a sentence longer than the model was
// trained on is translated with a "note: ..." there (and "note" in JSON); a sentence that
// cannot be translated gets a one-line "error: ..." there and the others go on. Returns the
// number of sentences not translated (--input's blank lines, left empty by design, are not
// counted). Throws (one line) when the checkpoint or a file cannot be used at all.
std::size_t translate_sentences(const std::string& checkpoint_or_run, const TranslateRequest& request,
                                std::istream& input, std::ostream& out, std::ostream& messages);
// The same with the checkpoint a program opened already (to learn its kind): read once, let go
// once the model is loaded.
std::size_t translate_sentences(std::unique_ptr<checkpoint::CheckpointReader> checkpoint,
                                const TranslateRequest& request, std::istream& input, std::ostream& out,
                                std::ostream& messages);

// The PNG heat maps of every layer and head (encoder self-attention, decoder self-attention,
// cross-attention) of `maps` written into `dir`; returns the files written.
std::vector<std::string> save_attention_maps(const TranslationAttention& maps, const std::string& dir);

}  // namespace dls::report

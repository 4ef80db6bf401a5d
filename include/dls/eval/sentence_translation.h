// Translating a user's own sentences with a seq2seq checkpoint (checkpoint_eval --translate,
// --interactive), and the attention maps of one translation (--attention-maps).
#pragma once

#include <cstddef>
#include <iosfwd>
#include <string>
#include <vector>

#include "dls/checkpoint/checkpoint.h"
#include "dls/eval/decoding.h"

namespace dls::eval {

struct TranslateRequest {
  std::vector<std::string> sentences;  // --translate, in order
  bool interactive = false;            // then one sentence per line of `input`
  bool prompt = false;                 // interactive: "english> " on `messages` before each line
  DecodeOptions decode;
  std::string attention_maps_dir;  // non-empty: heat maps of the first sentence's translation
  bool json = false;               // one JSON object per sentence (a line each)
  int threads = 0;
  std::string device = "cpu";
  checkpoint::Weights weights = checkpoint::Weights::kEvaluation;  // the moving average when saved, or the trained
};

// Translates with `checkpoint_file` (a seq2seq checkpoint) and writes each translation on a
// line of `out` (or one JSON object per line). Each sentence is normalised like the training
// data; unknown words are reported on `messages` and become <unk>; a sentence that cannot
// be translated (too long, no words) gets a one-line "error: ..." on `messages` and the
// others go on. Returns the number of sentences not translated. Throws (one line) when the
// checkpoint cannot be used at all.
std::size_t translate_sentences(const std::string& checkpoint_file, const TranslateRequest& request,
                                std::istream& input, std::ostream& out, std::ostream& messages);

}  // namespace dls::eval

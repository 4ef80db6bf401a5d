// Translating a user's own sentences with a seq2seq checkpoint (checkpoint_eval --translate,
// --interactive), and the attention maps of one translation (--attention-maps).
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "dls/eval/decoding.h"

namespace dls::apps {

struct TranslateRequest {
  std::vector<std::string> sentences;  // --translate, in order
  bool interactive = false;            // then one sentence per line of `input`
  eval::DecodeOptions decode;
  std::string attention_maps_dir;      // non-empty: heat maps of the first sentence's translation
  bool json = false;                   // one JSON object per sentence (a line each)
  int threads = 0;
  std::string device = "cpu";
};

// Translates with `checkpoint` (a seq2seq checkpoint file). Each sentence is normalised
// like the training data; unknown words are reported on stderr and become <unk>; a
// sentence that cannot be translated (too long, no words) gets a one-line error on stderr
// and the others go on. Prints each translation on a line of stdout. Returns 0 when every
// sentence was translated, 1 otherwise.
int run_sentence_translation(const std::string& checkpoint, const TranslateRequest& request, std::istream& input);

}  // namespace dls::apps

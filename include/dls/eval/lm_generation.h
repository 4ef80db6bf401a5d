// Text from a decoder-only language model: the next token chosen by temperature, top-k and
// top-p (nucleus) sampling (sampling.h), and generation that runs each new token through the cached
// keys/values of the tokens before it (or, as the plain reference, the full sequence again).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <torch/types.h>

#include "dls/data/lm_dataset.h"
#include "dls/data/normalize.h"
#include "dls/eval/sampling.h"
#include "dls/models/language_model.h"

namespace dls::eval {

struct Generation {
  std::vector<std::int64_t> tokens;   // the generated tokens (after the prompt), EOS included when drawn
  std::vector<torch::Tensor> logits;  // [V] fp32, the model's logits before each generated token
};

// Continues `prompt` (token ids, SOS first) until EOS or L tokens in all, one token per
// step chosen by `options`. cached: each step runs only the new token through the
// keys/values cached by the earlier steps; false: the whole sequence again (the plain
// reference). The model is used in eval mode without gradients and put back. `never`:
// tokens never chosen.
Generation generate(LanguageModel& model, const std::vector<std::int64_t>& prompt, std::int64_t eos,
                    const SamplingOptions& options, bool cached = true, const std::vector<std::int64_t>& never = {});

// What a sentence model's words never are: SOS, <pad>, and <unk> (no training target is one:
// the vocabulary is the training split's), which a hot sampler drew nonetheless.
inline const std::vector<std::int64_t> kNotInSentences{data::Vocabulary::kSos, data::Vocabulary::kPad,
                                                       data::Vocabulary::kUnk};

// Running text (lm_train --block-size): continues `prompt` (at least one token) by exactly
// `count` tokens, EOS or not. The model reads at most the last L - 1 tokens (the block it was
// trained on): while the text fits, each step runs only the new token through the cached
// keys/values; past that, each step runs the last L - 1 tokens again (positions move, so a
// cache cannot slide). cached = false: the whole window every step (the plain reference).
// `never`: tokens never chosen (the specials a running text does not hold: its model has
// never been taught not to draw them).
Generation continue_text(LanguageModel& model, const std::vector<std::int64_t>& prompt, std::int64_t count,
                         const SamplingOptions& options, bool cached = true,
                         const std::vector<std::int64_t>& never = {});

// Running text as text: `prompt` (as a user types it) tokenised as the run reads its text,
// after a line break (so "" starts a new line), continued by `count` tokens; returns the
// prompt and its continuation as text -- characters as they are, words and pieces joined by
// spaces with a line break for each EOS. Prompt tokens not in the vocabulary are appended to
// *unknown (they are read as <unk>).
std::string continue_running_text(LanguageModel& model, const data::LmTokenizer& tokenizer,
                                  const data::Vocabulary& vocabulary, data::Language language,
                                  const std::string& prompt, std::int64_t count, const SamplingOptions& options,
                                  std::vector<std::string>* unknown = nullptr);

}  // namespace dls::eval

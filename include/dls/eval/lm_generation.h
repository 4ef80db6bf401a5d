// Text from a decoder-only language model: the next token chosen by temperature, top-k and
// top-p (nucleus) sampling, and generation that runs each new token through the cached
// keys/values of the tokens before it (or, as the plain reference, the full sequence again).
#pragma once

#include <cstdint>
#include <vector>

#include <torch/types.h>

#include "dls/models/language_model.h"

namespace dls::eval {

struct SamplingOptions {
  double temperature = 1.0;  // divides the logits; <= 0: greedy (the most probable token)
  std::int64_t top_k = 0;    // > 0: sample among the k most probable tokens only
  double top_p = 1.0;        // < 1: among the fewest most probable tokens whose probability reaches p
  std::uint64_t seed = 0;    // of the draws (the same seed gives the same text)
};

// logits [..., V] with every entry outside the k largest of its row set to -inf (ties with
// the k-th largest are kept). k <= 0 or k >= V: unchanged.
torch::Tensor top_k_filter(const torch::Tensor& logits, std::int64_t k);

// logits [..., V] with -inf outside the nucleus of each row: the most probable tokens, in
// order, up to and including the first whose cumulative probability reaches p (always at
// least one token). p >= 1: unchanged.
torch::Tensor top_p_filter(const torch::Tensor& logits, double p);

struct Generation {
  std::vector<std::int64_t> tokens;   // the generated tokens (after the prompt), EOS included when drawn
  std::vector<torch::Tensor> logits;  // [V] fp32, the model's logits before each generated token
};

// Continues `prompt` (token ids, SOS first) until EOS or L tokens in all, one token per
// step chosen by `options`. cached: each step runs only the new token through the
// keys/values cached by the earlier steps; false: the whole sequence again (the plain
// reference). The model is used in eval mode without gradients and put back.
Generation generate(LanguageModel& model, const std::vector<std::int64_t>& prompt, std::int64_t eos,
                    const SamplingOptions& options, bool cached = true);

}  // namespace dls::eval

// Text from a decoder-only language model: the next token chosen by temperature, top-k and
// top-p (nucleus) sampling (sampling.h), and generation that runs each new token through the cached
// keys/values of the tokens before it (or, as the plain reference, the full sequence again).
#pragma once

#include <cstdint>
#include <vector>

#include <torch/types.h>

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
// reference). The model is used in eval mode without gradients and put back.
Generation generate(LanguageModel& model, const std::vector<std::int64_t>& prompt, std::int64_t eos,
                    const SamplingOptions& options, bool cached = true);

}  // namespace dls::eval

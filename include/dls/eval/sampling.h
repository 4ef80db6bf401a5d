// Choosing the next token by sampling: temperature, top-k and top-p (nucleus) over a model's
// logits. The language model's generation (lm_generation.h) and the translator's sampled
// decoding (decoding.h, back-translation) draw their words through these.
#pragma once

#include <cstdint>
#include <vector>

#include <torch/types.h>

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

// One token per row of logits [R, V] (any device and type), chosen by `options` with the
// uniform number uniforms[r] in [0, 1) for row r: the first token whose cumulative probability
// passes it (the most probable one when the temperature is <= 0). Returns [R] int64 on the CPU.
torch::Tensor sample_rows(const torch::Tensor& logits, const SamplingOptions& options,
                          const std::vector<double>& uniforms);

}  // namespace dls::eval

// Attention for one decoding position per row, as single kernels (private to src/layers):
// what scaled_attention does for a [R, H, 1, s] query -- Q K^T, the scale, the mask, the
// softmax and the product with V, then the heads merged -- in one pass over raw floats, with
// no operator dispatched between them. A one-row decoder step of the cpu preset otherwise
// spends most of its time dispatching some twenty small operators per attention layer.
// Vaswani's arithmetic only (scale before the softmax): the dlstudio layout decodes by
// recomputing its prefix and never takes a step.
#pragma once

#include <cstdint>

#include <torch/types.h>

#include "dls/layers/attention.h"

namespace dls::detail {

// Whether the step kernels can take x: float32 on the CPU, autocast off, no gradient wanted
// (decoding runs under NoGradGuard or InferenceMode), and the kernels switched on.
bool attention_step_applies(const torch::Tensor& x);

// Self-attention at one new position `position` of every row: qkv [R, H*3*s] (the layer's
// fused projection: for each head its Q, K and V), cache keys/values [R, H, C, s]
// contiguous with C > position. Writes the new K and V at `position` and returns
// softmax(q K^T / sqrt(s)) V over positions 0 .. position, heads merged: [R, H*s].
torch::Tensor self_attention_step(const torch::Tensor& qkv, KeyValueCache& cache, std::int64_t position,
                                  std::int64_t heads);

// Cross-attention of one query position per row: q [R, H*s] contiguous, keys/values
// [R, H, Lk, s] with rows of s contiguous floats (any other strides), mask additive
// [R, 1, 1, Lk] contiguous (or undefined) -> [R, H*s].
torch::Tensor cross_attention_step(const torch::Tensor& q, const torch::Tensor& keys, const torch::Tensor& values,
                                   const torch::Tensor& mask, std::int64_t heads);

}  // namespace dls::detail

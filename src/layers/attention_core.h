// Pieces shared by the attention classes (private to src/layers).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <mutex>
#include <utility>
#include <vector>

#include <torch/torch.h>

#include "dls/layers/transformer_config.h"

namespace dls::detail {

// q [..., Lq, s], k [..., Lk, s], v [..., Lk, s] -> [..., Lq, s].
// vaswani: softmax(QK^T / sqrt(s) + mask) V, dropout on the weights.
// dlstudio: softmax(QK^T + mask) V / sqrt(s) -- DLStudio scales after the softmax, which
// leaves the weights unscaled (sharper) and shrinks the output instead.
// weights (optional) receives the softmax output (before dropout).
torch::Tensor scaled_attention(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v, Layout layout,
                               const torch::Tensor& mask, torch::nn::Dropout& dropout, torch::Tensor* weights);

// Which of a head's projections to stack.
enum class Projection { kQ = 0, kK = 1, kV = 2 };

// The chosen projections of every head, stacked: weight [H, n*rows, cols] (for each head
// the n projections one after the other), bias [H, n*rows]. A copy, made per forward so
// that each head keeps its own DLStudio-named parameters.
struct StackedWeights {
  torch::Tensor weight, bias;
};
StackedWeights stack_heads(const torch::nn::ModuleList& heads, std::initializer_list<Projection> parts);

// stack_heads() kept between forwards that record no gradient (evaluation, decoding), and
// made again when any weight it copies changed: another storage, or its version counter
// moved (an optimizer step, a checkpoint loaded into it; fused_adam.cpp moves it by hand).
// With gradients on, or on a GPU (where a captured step's replay writes the weights without
// moving their versions), it stacks every time, so that autograd reaches each head's own
// parameters. Restacking the heads of a
// 3-layer model cost ~2 ms of a 13 ms one-sentence translation. Thread-safe: chunks of a
// batch decode on several threads with one model.
class StackedHeadsCache {
 public:
  StackedWeights get(const torch::nn::ModuleList& heads, std::initializer_list<Projection> parts);

 private:
  std::mutex mutex_;
  StackedWeights stacked_;
  std::vector<std::pair<const void*, std::int64_t>> sources_;  // (data, version) of each weight and bias
};

// Applies n stacked projections to x [B, L, M]. Returns [n, H, B, L, s] (dlstudio: each
// head's flattened slice through Linear(L*s, n*L*s); positionwise: each head's slice
// through Linear(s, n*s) per position) or [n, B, H, L, s] (vaswani: x through
// Linear(M, H*n*s) per position).
torch::Tensor project_heads(const torch::Tensor& x, const StackedWeights& stacked, const TransformerConfig& config,
                            std::int64_t n);

// Inverse of the head split: z [H, B, L, s] (DLStudio's layouts) or [B, H, L, s] (vaswani) -> [B, L, M].
torch::Tensor merge_heads(const torch::Tensor& z, const TransformerConfig& config);

// Attention weights in the public shape [B, H, Lq, Lk].
torch::Tensor weights_batch_first(const torch::Tensor& w, const TransformerConfig& config);

}  // namespace dls::detail

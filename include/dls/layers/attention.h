// DLStudio's attention classes: AttentionHead / SelfAttention and CrossAttentionHead /
// CrossAttention, in both layouts (see transformer_config.h).
//
// Each head keeps its own WQ, WK, WV (DLStudio's names and parameter counts), but the fast
// forward() runs the H heads of a layer as one batched product over weights stacked on
// the fly; forward_per_head() is the plain per-head loop, kept as the reference that the
// tests hold the fast path to.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>

#include <torch/nn/module.h>
#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/modules/dropout.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/pimpl.h>

#include "dls/layers/transformer_config.h"

namespace dls {

namespace detail {
class StackedHeadsCache;  // the heads' weights stacked for the batched forward (attention_core.h)
}

// One head's projections. dlstudio layout: WQ/WK/WV = Linear(L*s, L*s) over the head's
// flattened slice [B, L*s]; vaswani layout: Linear(M, s) per position.
class AttentionHeadImpl : public torch::nn::Module {
 public:
  explicit AttentionHeadImpl(const TransformerConfig& config);

  // dlstudio: x [B, L, s] (this head's slice); vaswani: x [B, L, M]. Returns Z [B, L, s].
  // mask: additive, broadcastable to [B, Lq, Lk] (vaswani only).
  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& mask = {});

  // Queries from q_input, keys and values from kv_input (same shapes rules as forward).
  // weights (optional) receives the attention weights [B, Lq, Lk].
  torch::Tensor attend(const torch::Tensor& q_input, const torch::Tensor& kv_input, const torch::Tensor& mask,
                       torch::Tensor* weights);

  torch::nn::Linear WQ{nullptr}, WK{nullptr}, WV{nullptr};

 protected:
  TransformerConfig config_;
  torch::nn::Dropout attention_dropout_{nullptr};
};
TORCH_MODULE(AttentionHead);

// Same parameters as AttentionHead; Q from the decoder, K and V from the encoder output.
class CrossAttentionHeadImpl : public AttentionHeadImpl {
 public:
  using AttentionHeadImpl::AttentionHeadImpl;
  // x [B, Lq, s|M] from the decoder, encoder_out [B, Lk, s|M] -> [B, Lq, s].
  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& encoder_out, const torch::Tensor& mask = {});
};
TORCH_MODULE(CrossAttentionHead);

// Keys and values of a cross-attention layer for one batch of encoder outputs, computed
// once and reused by every prefix copy or decoding step.
struct AttentionMemory {
  torch::Tensor keys;    // dlstudio: [H, B, Lk, s]; vaswani: [B, H, Lk, s]
  torch::Tensor values;  // same shape as keys
};

// Growing keys/values of a decoder self-attention layer for step-by-step decoding
// (vaswani layout only): [B, H, capacity, s], of which `length` positions are filled.
struct KeyValueCache {
  torch::Tensor keys, values;
  std::int64_t length = 0;
  // Reorders the batch rows (beam search): rows = index [B'].
  void reorder(const torch::Tensor& index);
};

class SelfAttentionImpl : public torch::nn::Module {
 public:
  explicit SelfAttentionImpl(const TransformerConfig& config);

  // x [B, L, M] -> [B, L, M]. mask: additive, broadcastable to [B, H, Lq, Lk] (vaswani).
  // weights (optional) receives [B, H, Lq, Lk].
  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& mask = {}, torch::Tensor* weights = nullptr);

  // The plain loop over heads (DLStudio's code path); same result as forward().
  torch::Tensor forward_per_head(const torch::Tensor& x, const torch::Tensor& mask = {},
                                 torch::Tensor* weights = nullptr);

  // Decoding step (vaswani): x_new [B, T, M] are positions cache.length .. +T-1; they
  // attend to the cached positions and causally to each other. Appends to the cache.
  torch::Tensor forward_cached(const torch::Tensor& x_new, KeyValueCache& cache, std::int64_t capacity,
                               const torch::Tensor& key_mask = {}, torch::Tensor* weights = nullptr);

  torch::nn::ModuleList attention_heads_arr{nullptr};
  torch::nn::Linear W_O{nullptr};  // vaswani layout only

 private:
  TransformerConfig config_;
  torch::nn::Dropout attention_dropout_{nullptr};
  std::shared_ptr<detail::StackedHeadsCache> qkv_;  // Q, K and V of every head
};
TORCH_MODULE(SelfAttention);

class CrossAttentionImpl : public torch::nn::Module {
 public:
  explicit CrossAttentionImpl(const TransformerConfig& config);

  // x [B', Lq, M] from the decoder, encoder_out [B, Lk, M] with B' = r*B: the r copies
  // of a batch are stacked copy-major (row i*B + b is copy i of sentence b) and share the
  // encoder's keys and values. Returns [B', Lq, M].
  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& encoder_out, const torch::Tensor& mask = {},
                        torch::Tensor* weights = nullptr);

  AttentionMemory project_memory(const torch::Tensor& encoder_out);
  // mask: additive, broadcastable to [B, H, Lq, Lk] over the B encoder rows (vaswani).
  torch::Tensor attend(const torch::Tensor& x, const AttentionMemory& memory, const torch::Tensor& mask = {},
                       torch::Tensor* weights = nullptr);

  torch::Tensor forward_per_head(const torch::Tensor& x, const torch::Tensor& encoder_out,
                                 const torch::Tensor& mask = {}, torch::Tensor* weights = nullptr);

  torch::nn::ModuleList attention_heads_arr{nullptr};
  torch::nn::Linear W_O{nullptr};  // vaswani layout only

 private:
  TransformerConfig config_;
  torch::nn::Dropout attention_dropout_{nullptr};
  std::shared_ptr<detail::StackedHeadsCache> queries_, keys_values_;
};
TORCH_MODULE(CrossAttention);

// A decoding step of one position per row (eval mode, no gradient, fp32 on the CPU) runs
// each attention layer's scores, softmax and weighted sum as one kernel over raw floats
// instead of some twenty small operators. On by default; off: the general operators (the
// plain path that the tests and `dls_bench --plain-decoder-step` compare with).
void set_attention_step_kernels_enabled(bool enabled);
bool attention_step_kernels_enabled();

}  // namespace dls

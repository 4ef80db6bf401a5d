// DLStudio's attention classes: AttentionHead / SelfAttention and CrossAttentionHead /
// CrossAttention, in both layouts (see transformer_config.h).
//
// A layer keeps the WQ, WK, WV of its H heads in fused tensors (one weight and one bias
// for a self-attention layer's Q, K and V), so that forward() runs every head as one
// batched product without restacking per-head weights each step, and backward, clipping
// and the optimizer see two tensors where DLStudio has 6H. DLStudio's names and parameter
// counts stay where people meet them: checkpoints save each head's WQ/WK/WV under
// DLStudio's names (saved_tensors.h), head_projection() gives one head's as views, and
// forward_per_head() is DLStudio's plain loop over heads, the reference that the tests hold
// the fast path to.
#pragma once

#include <cstdint>

#include <torch/nn/module.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/pimpl.h>

#include "dls/layers/dropout.h"
#include "dls/layers/transformer_config.h"

namespace dls {

// One of a head's three projections.
enum class Projection { kQ = 0, kK = 1, kV = 2 };

// One head's WQ, WK or WV in a layer: weight [rows, cols] and bias [rows], views of the
// layer's fused tensors (writing into them writes the layer). dlstudio layout: rows = cols =
// L*s; positionwise: s x s; vaswani: s x M.
struct HeadProjection {
  torch::Tensor weight, bias;
};

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
  Dropout attention_dropout_{nullptr};
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

  // Head h's WQ, WK or WV as views of qkv_weight and qkv_bias.
  HeadProjection head_projection(std::int64_t h, Projection part) const;

  // Every head's Q, K and V projections: qkv_weight [H, 3*rows, cols] (for each head its
  // WQ, WK and WV weights one after the other), qkv_bias [H, 3*rows]. Initialised as
  // DLStudio's per-head Linear layers are, in their order: the same seed gives the same values.
  torch::Tensor qkv_weight, qkv_bias;
  torch::nn::Linear W_O{nullptr};  // vaswani layout only

 private:
  TransformerConfig config_;
  Dropout attention_dropout_{nullptr};
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

  // Head h's WQ (from q_weight, q_bias), WK or WV (from kv_weight, kv_bias), as views.
  HeadProjection head_projection(std::int64_t h, Projection part) const;

  // The queries' projections, q_weight [H, rows, cols] and q_bias [H, rows], apart from the
  // keys' and values' (kv_weight [H, 2*rows, cols]: each head's WK then WV; kv_bias
  // [H, 2*rows]), which apply to the encoder output once per batch.
  torch::Tensor q_weight, q_bias, kv_weight, kv_bias;
  torch::nn::Linear W_O{nullptr};  // vaswani layout only

 private:
  TransformerConfig config_;
  Dropout attention_dropout_{nullptr};
};
TORCH_MODULE(CrossAttention);

// A decoding step of one position per row (eval mode, no gradient, fp32 on the CPU) runs
// each attention layer's scores, softmax and weighted sum as one kernel over raw floats
// instead of some twenty small operators. On by default; off: the general operators (the
// plain path that the tests and `dls_bench --plain-decoder-step` compare with).
void set_attention_step_kernels_enabled(bool enabled);
bool attention_step_kernels_enabled();

}  // namespace dls

// Pieces shared by the attention classes (private to src/layers).
#pragma once

#include <cstdint>
#include <utility>

#include <torch/torch.h>

#include "dls/layers/attention.h"
#include "dls/layers/transformer_config.h"

namespace dls::detail {

// q [..., Lq, s], k [..., Lk, s], v [..., Lk, s] -> [..., Lq, s].
// vaswani: softmax(QK^T / sqrt(s) + mask) V, dropout on the weights.
// dlstudio: softmax(QK^T + mask) V / sqrt(s) -- DLStudio scales after the softmax, which
// leaves the weights unscaled (sharper) and shrinks the output instead.
// weights (optional) receives the softmax output (before dropout).
torch::Tensor scaled_attention(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v, Layout layout,
                               const torch::Tensor& mask, Dropout& dropout, torch::Tensor* weights);

// `heads` x `parts` projections Linear(in, out) in one pair of tensors: weight
// [heads, parts*out, in], bias [heads, parts*out] (for each head its parts one after the
// other). Each part is initialised as torch::nn::Linear(in, out) initialises itself, in the
// order DLStudio makes its heads' WQ, WK, WV, so that a seed gives the per-head layers' values.
std::pair<torch::Tensor, torch::Tensor> fused_projections(std::int64_t heads, std::int64_t parts, std::int64_t in,
                                                          std::int64_t out);

// Part `part` of head `head` in fused projections of `parts` parts: views [out, in] and [out].
HeadProjection fused_part(const torch::Tensor& weight, const torch::Tensor& bias, std::int64_t head, std::int64_t parts,
                          std::int64_t part);

// Head `head`'s WQ, WK or WV in a self-attention layer's fused tensors (qkv_weight, qkv_bias:
// each head's Q, K, V in turn), and in a cross-attention layer's (WQ from q_weight, q_bias; WK
// and WV from kv_weight, kv_bias). The layers' head_projection() and the saved names
// (saved_tensors.h) both part them so; the tensors may stand for the parameters (a moment).
HeadProjection self_attention_part(const torch::Tensor& qkv_weight, const torch::Tensor& qkv_bias, std::int64_t head,
                                   Projection part);
HeadProjection cross_attention_part(const torch::Tensor& q_weight, const torch::Tensor& q_bias,
                                    const torch::Tensor& kv_weight, const torch::Tensor& kv_bias, std::int64_t head,
                                    Projection part);

// DLStudio's one head: Q = WQ(q_input), K = WK(kv_input), V = WV(kv_input), then
// scaled_attention. dlstudio layout: inputs [B, L, s], each projection over the flattened
// [B, L*s]; positionwise [B, L, s] and vaswani [B, L, M] per position. Returns [B, Lq, s].
torch::Tensor attend_one_head(const torch::Tensor& q_input, const torch::Tensor& kv_input, const HeadProjection& wq,
                              const HeadProjection& wk, const HeadProjection& wv, const TransformerConfig& config,
                              const torch::Tensor& mask, Dropout& dropout, torch::Tensor* weights);

// Applies a layer's n fused projections (weight [H, n*rows, cols], bias [H, n*rows]) to
// x [B, L, M]. Returns [n, H, B, L, s] (dlstudio: each head's flattened slice through
// Linear(L*s, n*L*s); positionwise: each head's slice through Linear(s, n*s) per position)
// or [n, B, H, L, s] (vaswani: x through Linear(M, H*n*s) per position).
torch::Tensor project_heads(const torch::Tensor& x, const torch::Tensor& weight, const torch::Tensor& bias,
                            const TransformerConfig& config, std::int64_t n);

// Inverse of the head split: z [H, B, L, s] (DLStudio's layouts) or [B, H, L, s] (vaswani) -> [B, L, M].
torch::Tensor merge_heads(const torch::Tensor& z, const TransformerConfig& config);

// Attention weights in the public shape [B, H, Lq, Lk].
torch::Tensor weights_batch_first(const torch::Tensor& w, const TransformerConfig& config);

}  // namespace dls::detail

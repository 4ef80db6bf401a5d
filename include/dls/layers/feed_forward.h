// The feed-forward sublayer of every block, held by the block itself as W1 and W2 so that
// parameter names read like DLStudio's (`basic_encoder_arr.0.W1.weight`).
#pragma once

#include <cstdint>

#include <torch/nn/modules/dropout.h>
#include <torch/nn/modules/linear.h>

#include "dls/layers/transformer_config.h"

namespace dls {

// dlstudio: W1 = Linear(L*M, 2*L*M), W2 = Linear(2*L*M, L*M) over the flattened sentence.
// vaswani:  W1 = Linear(M, f*M),     W2 = Linear(f*M, M) per position.
torch::nn::Linear make_ffn_w1(const TransformerConfig& config);
torch::nn::Linear make_ffn_w2(const TransformerConfig& config);

// x [B, L, M] -> W2(ReLU(W1(x))) [B, L, M]; vaswani applies dropout after the ReLU.
torch::Tensor feed_forward(const torch::Tensor& x, torch::nn::Linear& W1, torch::nn::Linear& W2,
                           torch::nn::Dropout& dropout, const TransformerConfig& config);

// Additive attention masks (0 = visible, -inf = hidden).
// key_padding [B, Lk] bool (true = padding) -> [B, 1, 1, Lk].
torch::Tensor key_padding_mask(const torch::Tensor& key_padding);
// Position i sees positions 0..i: [1, 1, L, L].
torch::Tensor causal_mask(std::int64_t length, const torch::TensorOptions& options);

}  // namespace dls

// The feed-forward sublayer of every block, held by the block itself as W1 and W2 so that
// parameter names read like DLStudio's (`basic_encoder_arr.0.W1.weight`).
#pragma once

#include <cstdint>
#include <vector>

#include <torch/nn/modules/linear.h>
#include <torch/nn/modules/normalization.h>

#include "dls/layers/dropout.h"
#include "dls/layers/transformer_config.h"

namespace dls {

// dlstudio: W1 = Linear(L*M, 2*L*M), W2 = Linear(2*L*M, L*M) over the flattened sentence.
// vaswani:  W1 = Linear(M, f*M),     W2 = Linear(f*M, M) per position.
torch::nn::Linear make_ffn_w1(const TransformerConfig& config);
torch::nn::Linear make_ffn_w2(const TransformerConfig& config);
// The blocks' norm1/norm2/norm3: LayerNorm over the M embedding components.
torch::nn::LayerNorm make_layer_norm(const TransformerConfig& config);

// Rows [begin, end) of a batch; empty when begin >= end.
struct RowRange {
  std::int64_t begin = 0;
  std::int64_t end = 0;
};

// x [B, L, M] -> W2(ReLU(W1(x))) [B, L, M]; vaswani applies dropout after the ReLU.
// dlstudio: with `w2_rows` (one range per position j = 0..L-1), W2's output at position j
// is computed only for the rows in w2_rows[j] and is 0 elsewhere: the decoder's later
// layers never read the other rows (linear_by_column_blocks; under autocast in its type).
torch::Tensor feed_forward(const torch::Tensor& x, torch::nn::Linear& W1, torch::nn::Linear& W2, Dropout& dropout,
                           const TransformerConfig& config, const std::vector<RowRange>* w2_rows = nullptr);

// y = h W^T + b, h [R, K], weight [N, K], bias [N], computed in column blocks of `block`
// columns: block j (columns j*block .. (j+1)*block-1) only for the rows in rows[j]; every
// other entry of y [R, N] is 0 and passes no gradient. Forward and backward are one matrix
// product per block and input (N / block = rows.size()); the weight's gradient is written
// block by block into one buffer instead of summing a full-size gradient per slice. Under
// autocast the products run in the autocast type, as a Linear's would, and y is of that type.
torch::Tensor linear_by_column_blocks(const torch::Tensor& h, const torch::Tensor& weight, const torch::Tensor& bias,
                                      std::int64_t block, const std::vector<RowRange>& rows);

// Additive attention masks (0 = visible, -inf = hidden).
// key_padding [B, Lk] bool (true = padding) -> [B, 1, 1, Lk].
torch::Tensor key_padding_mask(const torch::Tensor& key_padding);
// Position i sees positions 0..i: [1, 1, L, L].
torch::Tensor causal_mask(std::int64_t length, const torch::TensorOptions& options);

}  // namespace dls

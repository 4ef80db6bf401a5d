#include "dls/layers/feed_forward.h"

#include <cmath>

#include <torch/torch.h>

namespace dls {

namespace {
// (input width, hidden width) of the FFN.
std::pair<std::int64_t, std::int64_t> ffn_widths(const TransformerConfig& config) {
  if (config.layout() == Layout::kDLStudio) {
    const std::int64_t flat = config.max_seq_length() * config.embedding_size();
    return {flat, 2 * flat};
  }
  return {config.embedding_size(), config.ffn_multiplier() * config.embedding_size()};
}
}  // namespace

torch::nn::Linear make_ffn_w1(const TransformerConfig& config) {
  const auto [in, hidden] = ffn_widths(config);
  return torch::nn::Linear(in, hidden);
}

torch::nn::Linear make_ffn_w2(const TransformerConfig& config) {
  const auto [in, hidden] = ffn_widths(config);
  return torch::nn::Linear(hidden, in);
}

torch::Tensor feed_forward(const torch::Tensor& x, torch::nn::Linear& W1, torch::nn::Linear& W2,
                           torch::nn::Dropout& dropout, const TransformerConfig& config) {
  if (config.layout() == Layout::kDLStudio) {
    // [B, L, M] -> [B, L*M] -> [B, 2*L*M] -> [B, L*M] -> [B, L, M]
    return W2(torch::relu(W1(x.reshape({x.size(0), -1})))).view(x.sizes());
  }
  return W2(dropout(torch::relu(W1(x))));  // [B, L, M] -> [B, L, f*M] -> [B, L, M]
}

torch::Tensor key_padding_mask(const torch::Tensor& key_padding) {
  TORCH_CHECK(key_padding.dim() == 2 && key_padding.scalar_type() == torch::kBool,
              "key padding must be a [B, L] bool tensor");
  return torch::zeros(key_padding.sizes(), torch::kFloat32)
      .to(key_padding.device())
      .masked_fill(key_padding, -INFINITY)
      .view({key_padding.size(0), 1, 1, key_padding.size(1)});
}

torch::Tensor causal_mask(std::int64_t length, const torch::TensorOptions& options) {
  auto hidden = torch::ones({length, length}, options.dtype(torch::kBool)).triu(1);
  return torch::zeros({1, 1, length, length}, options).masked_fill(hidden, -INFINITY);
}

}  // namespace dls

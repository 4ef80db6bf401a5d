#include <torch/torch.h>

#include "attention_core.h"
#include "dls/layers/attention.h"

namespace dls {

AttentionHeadImpl::AttentionHeadImpl(const TransformerConfig& config) : config_(config) {
  config.validate();
  const std::int64_t s = config.head_size();
  // dlstudio: one projection of the whole flattened slice; positionwise: the slice at each
  // position; vaswani: per position from the whole vector.
  const std::int64_t in = config.flattened()         ? config.max_seq_length() * s
                          : config.dlstudio_family() ? s
                                                     : config.embedding_size();
  const std::int64_t out = config.flattened() ? config.max_seq_length() * s : s;
  WQ = register_module("WQ", torch::nn::Linear(in, out));
  WK = register_module("WK", torch::nn::Linear(in, out));
  WV = register_module("WV", torch::nn::Linear(in, out));
  attention_dropout_ = register_module("attention_dropout", torch::nn::Dropout(config.effective_dropout()));
}

torch::Tensor AttentionHeadImpl::forward(const torch::Tensor& x, const torch::Tensor& mask) {
  return attend(x, x, mask, nullptr);
}

torch::Tensor AttentionHeadImpl::attend(const torch::Tensor& q_input, const torch::Tensor& kv_input,
                                        const torch::Tensor& mask, torch::Tensor* weights) {
  auto project = [&](torch::nn::Linear& linear, const torch::Tensor& input) {
    if (!config_.flattened()) return linear(input);  // [B, L, s|M] -> [B, L, s]
    // [B, L, s] -> [B, L*s] -> Linear(L*s, L*s) -> [B, L, s]
    return linear(input.reshape({input.size(0), -1})).view(input.sizes());
  };
  const auto q = project(WQ, q_input);
  const auto k = project(WK, kv_input);
  const auto v = project(WV, kv_input);
  return detail::scaled_attention(q, k, v, config_.layout(), mask, attention_dropout_, weights);
}

torch::Tensor CrossAttentionHeadImpl::forward(const torch::Tensor& x, const torch::Tensor& encoder_out,
                                              const torch::Tensor& mask) {
  return attend(x, encoder_out, mask, nullptr);
}

void KeyValueCache::reorder(const torch::Tensor& index) {
  keys = keys.index_select(0, index);
  values = values.index_select(0, index);
}

}  // namespace dls

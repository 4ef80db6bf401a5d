#include <torch/torch.h>

#include "attention_core.h"
#include "dls/layers/attention.h"

namespace dls {

AttentionHeadImpl::AttentionHeadImpl(const TransformerConfig& config) : config_(config) {
  config.validate();
  const std::int64_t in = config.projection_inputs(), out = config.projection_outputs();
  WQ = register_module("WQ", torch::nn::Linear(in, out));
  WK = register_module("WK", torch::nn::Linear(in, out));
  WV = register_module("WV", torch::nn::Linear(in, out));
  attention_dropout_ = register_module("attention_dropout", Dropout(config.effective_dropout()));
}

torch::Tensor AttentionHeadImpl::forward(const torch::Tensor& x, const torch::Tensor& mask) {
  return attend(x, x, mask, nullptr);
}

torch::Tensor AttentionHeadImpl::attend(const torch::Tensor& q_input, const torch::Tensor& kv_input,
                                        const torch::Tensor& mask, torch::Tensor* weights) {
  return detail::attend_one_head(q_input, kv_input, {WQ->weight, WQ->bias}, {WK->weight, WK->bias},
                                 {WV->weight, WV->bias}, config_, mask, attention_dropout_, weights);
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

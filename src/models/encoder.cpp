#include "dls/models/encoder.h"

#include <torch/torch.h>

#include "dls/layers/feed_forward.h"

namespace dls {

BasicEncoderImpl::BasicEncoderImpl(const TransformerConfig& config) : config_(config) {
  self_attention_layer = register_module("self_attention_layer", SelfAttention(config));
  norm1 = register_module("norm1", make_layer_norm(config));
  W1 = register_module("W1", make_ffn_w1(config));
  W2 = register_module("W2", make_ffn_w2(config));
  norm2 = register_module("norm2", make_layer_norm(config));
  const double p = config.effective_dropout();
  dropout = register_module("dropout", Dropout(p));
}

torch::Tensor BasicEncoderImpl::forward(const torch::Tensor& x, const torch::Tensor& mask, torch::Tensor* weights) {
  auto ffn = [&](const torch::Tensor& h) { return feed_forward(h, W1, W2, dropout, config_); };
  if (config_.variant() == Variant::kFG) {
    const auto h = norm1(x + dropout(self_attention_layer(x, mask, weights)));
    return norm2(h + dropout(ffn(h)));
  }
  const auto y = x + dropout(self_attention_layer(norm1(x), mask, weights));
  return y + dropout(ffn(norm2(y)));
}

MasterEncoderImpl::MasterEncoderImpl(const TransformerConfig& config, std::int64_t num_encoders) {
  TORCH_CHECK(num_encoders > 0, "need at least one encoder");
  basic_encoder_arr = register_module("basic_encoder_arr", torch::nn::ModuleList());
  for (std::int64_t i = 0; i < num_encoders; ++i) basic_encoder_arr->push_back(BasicEncoder(config));
}

torch::Tensor MasterEncoderImpl::forward(const torch::Tensor& x, const torch::Tensor& mask,
                                         std::vector<torch::Tensor>* weights) {
  auto out = x;
  for (const auto& layer : *basic_encoder_arr) {
    torch::Tensor w;
    out = layer->as<BasicEncoderImpl>()->forward(out, mask, weights != nullptr ? &w : nullptr);
    if (weights != nullptr) weights->push_back(w);
  }
  return out;
}

}  // namespace dls

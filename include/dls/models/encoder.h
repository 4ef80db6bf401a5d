// DLStudio's BasicEncoder and MasterEncoder, used by the seq2seq transformers and by
// visTransformer.
#pragma once

#include <cstdint>
#include <vector>

#include <torch/nn/module.h>
#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/modules/normalization.h>
#include <torch/nn/pimpl.h>

#include "dls/layers/attention.h"
#include "dls/layers/dropout.h"
#include "dls/layers/transformer_config.h"

namespace dls {

// Self-attention then FFN.
//   FG:    h = norm1(x + SA(x));      out = norm2(h + FFN(h))
//   PreLN: y = x + SA(norm1(x));      out = y + FFN(norm2(y))
// (vaswani: dropout on SA(.) and FFN(.) before the residual sum.)
class BasicEncoderImpl : public torch::nn::Module {
 public:
  explicit BasicEncoderImpl(const TransformerConfig& config);

  // x [B, L, M] -> [B, L, M]; mask: additive [B|1, 1, L|1, L] (vaswani: source padding).
  // weights (optional) receives the self-attention weights [B, H, L, L].
  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& mask = {}, torch::Tensor* weights = nullptr);

  SelfAttention self_attention_layer{nullptr};
  torch::nn::LayerNorm norm1{nullptr};
  torch::nn::Linear W1{nullptr}, W2{nullptr};
  torch::nn::LayerNorm norm2{nullptr};
  Dropout dropout{nullptr};

 private:
  TransformerConfig config_;
};
TORCH_MODULE(BasicEncoder);

class MasterEncoderImpl : public torch::nn::Module {
 public:
  MasterEncoderImpl(const TransformerConfig& config, std::int64_t num_encoders);

  // x [B, L, M] -> [B, L, M]. weights (optional) receives one [B, H, L, L] per layer.
  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& mask = {},
                        std::vector<torch::Tensor>* weights = nullptr);

  torch::nn::ModuleList basic_encoder_arr{nullptr};
};
TORCH_MODULE(MasterEncoder);

}  // namespace dls

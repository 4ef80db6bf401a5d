// Inter-pixel attention: the AttentionBlock (and its QKVAttention) of DLStudio's
// GenerativeDiffusion module (lecture §16), itself OpenAI improved-diffusion's UNet block.
//
// Unlike word attention there are no W_Q/W_K/W_V matrices and no separate embedding: each
// pixel is a token whose C channel values are its embedding; one 1x1 convolution C -> 3C
// gives every pixel its queries, keys and values at once, and the H*W pixels of the map
// attend to each other. A zero-initialised 1x1 output convolution and a residual sum make
// a fresh block the identity, so it can be dropped into a trained network's stem.
#pragma once

#include <cstdint>

#include <torch/arg.h>
#include <torch/nn/module.h>
#include <torch/nn/modules/conv.h>
#include <torch/nn/modules/normalization.h>
#include <torch/nn/pimpl.h>
#include <torch/types.h>

namespace dls {

// DLStudio's QKVAttention: no parameters. qkv [B*N, 3c, T] (per head: c query channels,
// then c key channels, then c value channels) -> [B*N, c, T]. Q and K are each scaled by
// 1/sqrt(sqrt(c)) before their product (together the usual 1/sqrt(c), but with smaller
// intermediate values in half precision); the softmax over the T keys runs in float32
// and is cast back to the input's dtype. weights (optional) receives [B*N, T, T].
class QKVAttentionImpl : public torch::nn::Module {
 public:
  torch::Tensor forward(const torch::Tensor& qkv, torch::Tensor* weights = nullptr);
};
TORCH_MODULE(QKVAttention);

struct AttentionBlockOptions {
  /* implicit */ AttentionBlockOptions(std::int64_t channels) : channels_(channels) {}
  TORCH_ARG(std::int64_t, channels);         // C: channels of the feature map
  TORCH_ARG(std::int64_t, num_heads) = 1;    // N: each head sees c = C / N channels
  TORCH_ARG(std::int64_t, num_groups) = 32;  // GroupNorm groups (DLStudio: 32)
};

// x [B, C, H, W] (or [B, C, T], any number of spatial axes) -> same shape:
//   h = QKVAttention(qkv(norm(x)) as [B*N, 3C/N, T]) as [B, C, T];  out = x + proj_out(h).
// The head split is head-major: head n owns channels n*3c .. (n+1)*3c - 1 of qkv's output.
class AttentionBlockImpl : public torch::nn::Module {
 public:
  explicit AttentionBlockImpl(const AttentionBlockOptions& options);

  torch::Tensor forward(const torch::Tensor& x) { return forward_with_weights(x, nullptr); }
  // weights (optional) receives the attention weights [B, N, T, T] (query pixel, key pixel;
  // pixels row-major).
  torch::Tensor forward_with_weights(const torch::Tensor& x, torch::Tensor* weights);

  const AttentionBlockOptions& options() const { return options_; }

  torch::nn::GroupNorm norm{nullptr};  // GroupNorm(32, C), eps 1e-5, computed in float32
  torch::nn::Conv1d qkv{nullptr};      // Conv1d(C, 3C, 1): weight [3C, C, 1]
  QKVAttention attention{nullptr};
  torch::nn::Conv1d proj_out{nullptr};  // Conv1d(C, C, 1), weight and bias zero at start

 private:
  AttentionBlockOptions options_;
};
TORCH_MODULE(AttentionBlock);

}  // namespace dls

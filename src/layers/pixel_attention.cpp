#include "dls/layers/pixel_attention.h"

#include <cmath>

#include <torch/torch.h>

namespace dls {

torch::Tensor QKVAttentionImpl::forward(const torch::Tensor& qkv, torch::Tensor* weights) {
  TORCH_CHECK(qkv.dim() == 3 && qkv.size(1) % 3 == 0, "QKVAttention expects [B*N, 3c, T], got ", qkv.sizes());
  const std::int64_t c = qkv.size(1) / 3;
  const auto parts = qkv.split(c, 1);  // q, k, v: [B*N, c, T] each
  const double scale = 1.0 / std::sqrt(std::sqrt(static_cast<double>(c)));
  // weight[b, t, s] = sum_c (q[b, c, t] * scale) (k[b, c, s] * scale): [B*N, T, T]
  auto weight = torch::bmm((parts[0] * scale).transpose(1, 2), parts[1] * scale);
  weight = torch::softmax(weight.to(torch::kFloat), -1).to(weight.scalar_type());
  if (weights != nullptr) *weights = weight.detach();
  // h[b, c, t] = sum_s weight[b, t, s] v[b, c, s]: [B*N, c, T]
  return torch::bmm(parts[2], weight.transpose(1, 2));
}

AttentionBlockImpl::AttentionBlockImpl(const AttentionBlockOptions& options) : options_(options) {
  const auto C = options.channels(), N = options.num_heads(), G = options.num_groups();
  TORCH_CHECK(C > 0 && N > 0 && G > 0, "attention block sizes must be positive");
  TORCH_CHECK(C % G == 0, "attention block: ", C, " channels are not a multiple of ", G, " GroupNorm groups");
  TORCH_CHECK(C % N == 0, "attention block: ", C, " channels cannot be split into ", N, " heads");
  norm = register_module("norm", torch::nn::GroupNorm(torch::nn::GroupNormOptions(G, C).eps(1e-5)));
  qkv = register_module("qkv", torch::nn::Conv1d(torch::nn::Conv1dOptions(C, 3 * C, 1)));
  attention = register_module("attention", QKVAttention());
  proj_out = register_module("proj_out", torch::nn::Conv1d(torch::nn::Conv1dOptions(C, C, 1)));
  torch::NoGradGuard no_grad;
  proj_out->weight.zero_();
  proj_out->bias.zero_();
}

torch::Tensor AttentionBlockImpl::forward_with_weights(const torch::Tensor& x, torch::Tensor* weights) {
  const auto C = options_.channels(), N = options_.num_heads();
  TORCH_CHECK(x.dim() >= 3 && x.size(1) == C, "attention block expects [B, ", C, ", ...], got ", x.sizes());
  const auto B = x.size(0);
  const auto flat = x.reshape({B, C, -1});  // [B, C, T], T = H*W
  // GroupNorm in float32 and back, as DLStudio's GroupNorm32.
  const auto normed = norm(flat.to(torch::kFloat)).to(flat.scalar_type());
  // [B, 3C, T] -> [B*N, 3C/N, T]: head-major split, then Q, K, V inside each head.
  const auto q_k_v = qkv(normed).reshape({B * N, -1, flat.size(2)});
  auto h = attention->forward(q_k_v, weights);  // [B*N, c, T]
  if (weights != nullptr) *weights = weights->view({B, N, flat.size(2), flat.size(2)});
  h = proj_out(h.reshape({B, C, -1}));  // [B, C, T]
  return (flat + h).reshape(x.sizes());
}

}  // namespace dls

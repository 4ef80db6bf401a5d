#include "attention_core.h"

#include <cmath>

#include "dls/layers/attention.h"
#include "dls/layers/fused_attention.h"
#include "dls/layers/row_linear.h"
#include "dls/layers/small_batched_matmul.h"
#include "dls/util/precision.h"

namespace dls::detail {

namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

// y = slices W^T + b for each head, the product baddbmm(b, slices, W^T) computes, with W's
// gradient made in W's own layout: autograd's baddbmm gives it as (slices^T dy)^T, a transposed
// view that the optimizer or AccumulateGrad then copies whole (DLStudio's layout: 16 tensors,
// 59 M floats a step of the lecture's model). slices [H, R, K], weight [H, N, K], bias [H, N]
// -> y [H, R, N].
struct HeadsLinear : public torch::autograd::Function<HeadsLinear> {
  static torch::Tensor forward(AutogradContext* ctx, const torch::Tensor& slices, const torch::Tensor& weight,
                               const torch::Tensor& bias) {
    ctx->save_for_backward({slices, weight});
    return torch::baddbmm(bias.unsqueeze(1), slices, weight.transpose(1, 2));
  }

  static variable_list backward(AutogradContext* ctx, variable_list grad_outputs) {
    const auto saved = ctx->get_saved_variables();
    const auto& dy = grad_outputs[0];  // [H, R, N]
    torch::Tensor d_slices, d_weight, d_bias;
    if (ctx->needs_input_grad(0)) d_slices = torch::bmm(dy, saved[1]);                  // [H, R, K]
    if (ctx->needs_input_grad(1)) d_weight = torch::bmm(dy.transpose(1, 2), saved[0]);  // [H, N, K]
    if (ctx->needs_input_grad(2)) d_bias = dy.sum(1);                                   // [H, N]
    return {d_slices, d_weight, d_bias};
  }
};

torch::Tensor heads_linear(const torch::Tensor& slices, const torch::Tensor& weight, const torch::Tensor& bias) {
  // Autocast does not reach inside a custom function: the product in its type, as baddbmm's
  // would be.
  return HeadsLinear::apply(util::in_autocast_type(slices), util::in_autocast_type(weight),
                            util::in_autocast_type(bias));
}

}  // namespace

torch::Tensor scaled_attention(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v, Layout layout,
                               const torch::Tensor& mask, Dropout& dropout, torch::Tensor* weights) {
  const double scale = 1.0 / std::sqrt(static_cast<double>(q.size(-1)));
  if (weights == nullptr && fused_attention_on(q.device())) {
    // One operator (fused_attention.h). DLStudio's scale after the softmax: the operator at
    // scale 1, its output scaled; its layouts have no attention dropout.
    if (layout != Layout::kVaswani) return fused_attention(q, k, v, mask, 0.0, 1.0) * scale;
    const double p = dropout->is_training() ? dropout->options.p() : 0.0;
    return fused_attention(q, k, v, mask, p, scale);
  }
  auto scores = small_batched_matmul(q, k.transpose(-2, -1));  // [..., Lq, Lk]
  if (layout == Layout::kVaswani) scores = scores * scale;
  if (mask.defined()) scores = scores + mask;
  auto probabilities = torch::softmax(scores, -1);
  if (weights != nullptr) *weights = probabilities.detach();
  if (layout == Layout::kVaswani) {
    return small_batched_matmul(dropout(probabilities), v);
  }
  return small_batched_matmul(probabilities, v) * scale;
}

std::pair<torch::Tensor, torch::Tensor> fused_projections(std::int64_t heads, std::int64_t parts, std::int64_t in,
                                                          std::int64_t out) {
  auto weight = torch::empty({heads, parts * out, in});
  auto bias = torch::empty({heads, parts * out});
  for (std::int64_t h = 0; h < heads; ++h) {
    for (std::int64_t part = 0; part < parts; ++part) {
      // torch::nn::Linear's reset_parameters(), on this part's views: U(-1/sqrt(in), 1/sqrt(in)).
      auto [w, b] = fused_part(weight, bias, h, parts, part);
      torch::nn::init::kaiming_uniform_(w, std::sqrt(5.0));
      const double bound = 1.0 / std::sqrt(static_cast<double>(in));
      torch::nn::init::uniform_(b, -bound, bound);
    }
  }
  return {weight, bias};
}

HeadProjection fused_part(const torch::Tensor& weight, const torch::Tensor& bias, std::int64_t head, std::int64_t parts,
                          std::int64_t part) {
  const std::int64_t rows = weight.size(1) / parts;
  return {weight.select(0, head).narrow(0, part * rows, rows), bias.select(0, head).narrow(0, part * rows, rows)};
}

HeadProjection self_attention_part(const torch::Tensor& qkv_weight, const torch::Tensor& qkv_bias, std::int64_t head,
                                   Projection part) {
  return fused_part(qkv_weight, qkv_bias, head, 3, static_cast<std::int64_t>(part));
}

HeadProjection cross_attention_part(const torch::Tensor& q_weight, const torch::Tensor& q_bias,
                                    const torch::Tensor& kv_weight, const torch::Tensor& kv_bias, std::int64_t head,
                                    Projection part) {
  if (part == Projection::kQ) return fused_part(q_weight, q_bias, head, 1, 0);
  return fused_part(kv_weight, kv_bias, head, 2, static_cast<std::int64_t>(part) - 1);
}

torch::Tensor attend_one_head(const torch::Tensor& q_input, const torch::Tensor& kv_input, const HeadProjection& wq,
                              const HeadProjection& wk, const HeadProjection& wv, const TransformerConfig& config,
                              const torch::Tensor& mask, Dropout& dropout, torch::Tensor* weights) {
  auto project = [&](const HeadProjection& w, const torch::Tensor& input) {
    if (!config.flattened()) return torch::linear(input, w.weight, w.bias);  // [B, L, s]
    // [B, L, s] -> [B, L*s] -> Linear(L*s, L*s) -> [B, L, s]
    return torch::linear(input.reshape({input.size(0), -1}), w.weight, w.bias).view(input.sizes());
  };
  return scaled_attention(project(wq, q_input), project(wk, kv_input), project(wv, kv_input), config.layout(), mask,
                          dropout, weights);
}

torch::Tensor project_heads(const torch::Tensor& x, const torch::Tensor& weight, const torch::Tensor& bias,
                            const TransformerConfig& config, std::int64_t n) {
  const std::int64_t batch = x.size(0), length = x.size(1);
  const std::int64_t heads = config.num_heads(), s = config.head_size();
  if (config.layout() == Layout::kPositionwise) {
    // [B, L, M] -> [H, B*L, s]: each head's slice at every position.
    auto slices = x.view({batch, length, heads, s}).permute({2, 0, 1, 3}).reshape({heads, batch * length, s});
    // [H, B*L, s] x [H, s, n*s] + [H, 1, n*s] -> [H, B, L, n, s] -> [n, H, B, L, s]
    auto y = heads_linear(slices, weight, bias);
    return y.view({heads, batch, length, n, s}).permute({3, 0, 1, 2, 4});
  }
  if (config.layout() == Layout::kDLStudio) {
    // [B, L, M] -> [B, L, H, s] -> [H, B, L*s]: each head's slice, flattened over (L, s).
    auto slices = x.view({batch, length, heads, s}).permute({2, 0, 1, 3}).reshape({heads, batch, length * s});
    // [H, B, L*s] x [H, L*s, n*L*s] + [H, 1, n*L*s] -> [H, B, n*L*s]
    auto y = heads_linear(slices, weight, bias);
    // [H, B, n, L, s] -> [n, H, B, L, s]
    return y.view({heads, batch, n, length, s}).permute({2, 0, 1, 3, 4});
  }
  // [B, L, M] x [M, H*n*s] -> [B, L, H, n, s] -> [n, B, H, L, s]
  auto y = row_linear(x, weight.reshape({heads * n * s, -1}), bias.reshape({heads * n * s}));
  return y.view({batch, length, heads, n, s}).permute({3, 0, 2, 1, 4});
}

torch::Tensor merge_heads(const torch::Tensor& z, const TransformerConfig& config) {
  if (config.dlstudio_family()) {
    // [H, B, L, s] -> [B, L, H, s] -> [B, L, M]
    return z.permute({1, 2, 0, 3}).reshape({z.size(1), z.size(2), config.embedding_size()});
  }
  // [B, H, L, s] -> [B, L, H, s] -> [B, L, M]
  return z.transpose(1, 2).reshape({z.size(0), z.size(2), config.embedding_size()});
}

torch::Tensor weights_batch_first(const torch::Tensor& w, const TransformerConfig& config) {
  return config.dlstudio_family() ? w.transpose(0, 1) : w;
}

}  // namespace dls::detail

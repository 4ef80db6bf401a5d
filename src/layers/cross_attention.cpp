#include <torch/torch.h>

#include "attention_core.h"
#include "attention_step.h"
#include "dls/layers/attention.h"
#include "dls/layers/row_linear.h"

namespace dls {

CrossAttentionImpl::CrossAttentionImpl(const TransformerConfig& config) : config_(config) {
  config.validate();
  // Made as one [H, 3*rows, cols] for DLStudio's order of initialisation (each head's WQ,
  // WK, WV in turn), then parted into the queries' and the keys' and values' tensors.
  const std::int64_t rows = config.projection_outputs();
  const auto [weight, bias] = detail::fused_projections(config.num_heads(), 3, config.projection_inputs(), rows);
  q_weight = register_parameter("q_weight", weight.narrow(1, 0, rows).contiguous());
  q_bias = register_parameter("q_bias", bias.narrow(1, 0, rows).contiguous());
  kv_weight = register_parameter("kv_weight", weight.narrow(1, rows, 2 * rows).contiguous());
  kv_bias = register_parameter("kv_bias", bias.narrow(1, rows, 2 * rows).contiguous());
  if (config.layout() == Layout::kVaswani) {
    W_O = register_module("W_O", torch::nn::Linear(config.embedding_size(), config.embedding_size()));
  }
  attention_dropout_ = register_module("attention_dropout", Dropout(config.effective_dropout()));
}

HeadProjection CrossAttentionImpl::head_projection(std::int64_t h, Projection part) const {
  return detail::cross_attention_part(q_weight, q_bias, kv_weight, kv_bias, h, part);
}

AttentionMemory CrossAttentionImpl::project_memory(const torch::Tensor& encoder_out) {
  TORCH_CHECK(encoder_out.dim() == 3 && encoder_out.size(2) == config_.embedding_size(),
              "expected the encoder output as [B, L, M]");
  const auto kv = detail::project_heads(encoder_out, kv_weight, kv_bias, config_, 2).unbind(0);  // K, V
  return {kv[0], kv[1]};
}

torch::Tensor CrossAttentionImpl::attend(const torch::Tensor& x, const AttentionMemory& memory,
                                         const torch::Tensor& mask, torch::Tensor* weights) {
  TORCH_CHECK(x.dim() == 3 && x.size(2) == config_.embedding_size(), "expected [B', L, M]");
  const bool dlstudio = config_.dlstudio_family();  // head-major [H, B, ...] tensors
  const std::int64_t heads = config_.num_heads(), s = config_.head_size();
  const std::int64_t batch = memory.keys.size(dlstudio ? 1 : 0);
  const std::int64_t rows = x.size(0), length = x.size(1);
  TORCH_CHECK(rows % batch == 0, "decoder rows ", rows, " are not a multiple of the encoder batch ", batch);
  const std::int64_t copies = rows / batch;
  if (length == 1 && copies == 1 && weights == nullptr && !is_training() && config_.layout() == Layout::kVaswani &&
      detail::attention_step_applies(x) && (!mask.defined() || mask.numel() == rows * memory.keys.size(2))) {
    // One decoding position per row: [R, M] -> [R, H*s] queries, then one kernel.
    const auto q = row_linear(x.reshape({rows, heads * s}), q_weight.view({heads * s, -1}), q_bias.view({heads * s}));
    const auto z = detail::cross_attention_step(q, memory.keys, memory.values,
                                                mask.defined() ? mask.contiguous() : mask, heads);  // [R, M]
    return row_linear(z.view({rows, 1, heads * s}), W_O);
  }
  auto q = detail::project_heads(x, q_weight, q_bias, config_, 1)[0];  // [H, B', Lq, s] | [B', H, Lq, s]
  auto keys = memory.keys, values = memory.values;
  if (copies > 1) {
    // Copy-major rows share the encoder's keys and values by broadcasting:
    // dlstudio [H, r, B, Lq, s] x [H, 1, B, Lk, s]; vaswani [r, B, H, Lq, s] x [B, H, Lk, s].
    q = dlstudio ? q.view({heads, copies, batch, length, s}) : q.view({copies, batch, heads, length, s});
    if (dlstudio) {
      keys = keys.unsqueeze(1);
      values = values.unsqueeze(1);
    }
  }
  auto z = detail::scaled_attention(q, keys, values, config_.layout(), mask, attention_dropout_, weights);
  if (copies > 1) {
    z = dlstudio ? z.reshape({heads, rows, length, s}) : z.reshape({rows, heads, length, s});
    if (weights != nullptr) {
      *weights = dlstudio ? weights->reshape({heads, rows, length, -1}) : weights->reshape({rows, heads, length, -1});
    }
  }
  if (weights != nullptr) *weights = detail::weights_batch_first(*weights, config_);
  auto out = detail::merge_heads(z, config_);
  return W_O ? row_linear(out, W_O) : out;
}

torch::Tensor CrossAttentionImpl::forward(const torch::Tensor& x, const torch::Tensor& encoder_out,
                                          const torch::Tensor& mask, torch::Tensor* weights) {
  return attend(x, project_memory(encoder_out), mask, weights);
}

torch::Tensor CrossAttentionImpl::forward_per_head(const torch::Tensor& x, const torch::Tensor& encoder_out,
                                                   const torch::Tensor& mask, torch::Tensor* weights) {
  const std::int64_t s = config_.head_size();
  // The plain way: give every decoder row its own copy of the encoder output.
  const auto memory = encoder_out.repeat({x.size(0) / encoder_out.size(0), 1, 1});
  const auto per_row_mask = mask.defined() ? mask.repeat({x.size(0) / mask.size(0), 1, 1, 1}).select(1, 0) : mask;
  std::vector<torch::Tensor> outputs, head_weights;
  for (std::int64_t h = 0; h < config_.num_heads(); ++h) {
    const bool sliced = config_.dlstudio_family();
    const auto q_in = sliced ? x.narrow(2, h * s, s) : x;
    const auto kv_in = sliced ? memory.narrow(2, h * s, s) : memory;
    torch::Tensor w;
    outputs.push_back(detail::attend_one_head(q_in, kv_in, head_projection(h, Projection::kQ),
                                              head_projection(h, Projection::kK), head_projection(h, Projection::kV),
                                              config_, per_row_mask, attention_dropout_, &w));
    head_weights.push_back(w);
  }
  if (weights != nullptr) *weights = torch::stack(head_weights, 1);
  auto out = torch::cat(outputs, 2);
  return W_O ? row_linear(out, W_O) : out;
}

}  // namespace dls

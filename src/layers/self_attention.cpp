#include <torch/torch.h>

#include "attention_core.h"
#include "attention_step.h"
#include "dls/layers/attention.h"
#include "dls/layers/row_linear.h"

namespace dls {

namespace {

// Per-head view of a [B|1, 1, Lq, Lk] mask: [B|1, Lq, Lk].
torch::Tensor head_mask(const torch::Tensor& mask) { return mask.defined() ? mask.select(1, 0) : mask; }

}  // namespace

SelfAttentionImpl::SelfAttentionImpl(const TransformerConfig& config) : config_(config) {
  config.validate();
  auto [weight, bias] =
      detail::fused_projections(config.num_heads(), 3, config.projection_inputs(), config.projection_outputs());
  qkv_weight = register_parameter("qkv_weight", weight);
  qkv_bias = register_parameter("qkv_bias", bias);
  if (config.layout() == Layout::kVaswani) {
    W_O = register_module("W_O", torch::nn::Linear(config.embedding_size(), config.embedding_size()));
  }
  attention_dropout_ = register_module("attention_dropout", Dropout(config.effective_dropout()));
}

HeadProjection SelfAttentionImpl::head_projection(std::int64_t h, Projection part) const {
  return detail::self_attention_part(qkv_weight, qkv_bias, h, part);
}

torch::Tensor SelfAttentionImpl::forward(const torch::Tensor& x, const torch::Tensor& mask, torch::Tensor* weights) {
  TORCH_CHECK(x.dim() == 3 && x.size(2) == config_.embedding_size(), "expected [B, L, M]");
  TORCH_CHECK(!config_.flattened() || x.size(1) == config_.max_seq_length(),
              "the dlstudio layout needs sentences of exactly L = ", config_.max_seq_length(), " positions");
  // [3, H|B, B|H, L, s] as Q, K, V: one unbind (one backward node) rather than three selects.
  const auto qkv = detail::project_heads(x, qkv_weight, qkv_bias, config_, 3).unbind(0);
  auto z = detail::scaled_attention(qkv[0], qkv[1], qkv[2], config_.layout(), mask, attention_dropout_, weights);
  if (weights != nullptr) *weights = detail::weights_batch_first(*weights, config_);
  auto out = detail::merge_heads(z, config_);  // [B, L, M]
  return W_O ? row_linear(out, W_O) : out;
}

torch::Tensor SelfAttentionImpl::forward_per_head(const torch::Tensor& x, const torch::Tensor& mask,
                                                  torch::Tensor* weights) {
  const std::int64_t s = config_.head_size();
  std::vector<torch::Tensor> outputs, head_weights;
  for (std::int64_t h = 0; h < config_.num_heads(); ++h) {
    // DLStudio: head h sees columns h*s .. h*s+s-1; vaswani: the whole vector.
    const auto input = config_.dlstudio_family() ? x.narrow(2, h * s, s) : x;
    torch::Tensor w;
    outputs.push_back(detail::attend_one_head(input, input, head_projection(h, Projection::kQ),
                                              head_projection(h, Projection::kK), head_projection(h, Projection::kV),
                                              config_, head_mask(mask), attention_dropout_, &w));
    head_weights.push_back(w);
  }
  if (weights != nullptr) *weights = torch::stack(head_weights, 1);  // [B, H, Lq, Lk]
  auto out = torch::cat(outputs, 2);                                 // [B, L, M]
  return W_O ? row_linear(out, W_O) : out;
}

torch::Tensor SelfAttentionImpl::forward_cached(const torch::Tensor& x_new, KeyValueCache& cache, std::int64_t capacity,
                                                const torch::Tensor& key_mask, torch::Tensor* weights) {
  TORCH_CHECK(config_.layout() == Layout::kVaswani,
              "cached decoding needs the vaswani layout (dlstudio's flattened heads mix positions)");
  const std::int64_t batch = x_new.size(0), steps = x_new.size(1), start = cache.length;
  TORCH_CHECK(start + steps <= capacity, "key/value cache capacity ", capacity, " exceeded");
  const std::int64_t heads = config_.num_heads(), s = config_.head_size(), dim = config_.embedding_size();
  if (steps == 1 && weights == nullptr && !key_mask.defined() && !is_training() &&
      detail::attention_step_applies(x_new)) {
    // One position per row: [R, M] x [H*3*s, M]^T -> [R, H*3*s], each head's Q, K, V in turn.
    const auto qkv =
        row_linear(x_new.reshape({batch, dim}), qkv_weight.view({heads * 3 * s, dim}), qkv_bias.view({heads * 3 * s}));
    if (!cache.keys.defined()) {
      cache.keys = torch::zeros({batch, heads, capacity, s}, x_new.options());
      cache.values = torch::zeros_like(cache.keys);
    }
    const auto z = detail::self_attention_step(qkv, cache, start, heads);  // [R, M]
    cache.length = start + 1;
    return row_linear(z.view({batch, 1, dim}), W_O);
  }
  const auto qkv = detail::project_heads(x_new, qkv_weight, qkv_bias, config_, 3);  // [3, B, H, T, s]
  if (!cache.keys.defined()) {
    cache.keys = torch::zeros({batch, config_.num_heads(), capacity, config_.head_size()}, x_new.options());
    cache.values = torch::zeros_like(cache.keys);
  }
  cache.keys.narrow(2, start, steps).copy_(qkv[1]);
  cache.values.narrow(2, start, steps).copy_(qkv[2]);
  cache.length = start + steps;
  const auto keys = cache.keys.narrow(2, 0, cache.length);
  const auto values = cache.values.narrow(2, 0, cache.length);
  torch::Tensor mask = key_mask;
  if (steps > 1) {
    // New position start+i sees keys 0 .. start+i: [T, start+T] additive.
    auto causal = torch::ones({steps, cache.length}, x_new.options().dtype(torch::kBool)).triu(start + 1);
    auto additive =
        torch::zeros({steps, cache.length}, x_new.options()).masked_fill(causal.to(x_new.device()), -INFINITY);
    mask = mask.defined() ? mask + additive : additive;
  }
  auto z = detail::scaled_attention(qkv[0], keys, values, config_.layout(), mask, attention_dropout_, weights);
  return row_linear(detail::merge_heads(z, config_), W_O);
}

}  // namespace dls

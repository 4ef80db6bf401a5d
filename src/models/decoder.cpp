#include "dls/models/decoder.h"

#include <algorithm>
#include <cmath>

#include <torch/torch.h>

#include "dls/layers/feed_forward.h"
#include "dls/layers/row_linear.h"

namespace dls {

torch::Tensor prefix_row_keep(std::int64_t k_first, std::int64_t copies, std::int64_t batch, std::int64_t length,
                              const torch::TensorOptions& options) {
  const auto positions = torch::arange(length, options.dtype(torch::kLong)).unsqueeze(0);                  // [1, L]
  const auto prefix = torch::arange(k_first, k_first + copies, options.dtype(torch::kLong)).unsqueeze(1);  // [r, 1]
  const auto keep = (positions < prefix).to(options.dtype());                                              // [r, L]
  return keep.view({copies, 1, length, 1}).expand({copies, batch, length, 1}).reshape({copies * batch, length, 1});
}

std::vector<RowRange> prefix_ffn_rows(std::int64_t k_first, std::int64_t copies, std::int64_t batch,
                                      std::int64_t length, bool last_layer) {
  std::vector<RowRange> rows(static_cast<std::size_t>(length));
  for (std::int64_t j = 0; j < length; ++j) {
    auto& r = rows[static_cast<std::size_t>(j)];
    if (last_layer) {
      const std::int64_t copy = j - k_first;  // the copy whose k is j
      if (copy >= 0 && copy < copies) r = RowRange{copy * batch, (copy + 1) * batch};
    } else {
      const std::int64_t first_copy = std::max<std::int64_t>(0, j - k_first + 1);  // k > j
      if (first_copy < copies) r = RowRange{first_copy * batch, copies * batch};
    }
  }
  return rows;
}

BasicDecoderWithMaskingImpl::BasicDecoderWithMaskingImpl(const TransformerConfig& config, bool cross_attention)
    : config_(config) {
  self_attention_layer = register_module("self_attention_layer", SelfAttention(config));
  norm1 = register_module("norm1", make_layer_norm(config));
  if (cross_attention) {
    cross_attn_layer = register_module("cross_attn_layer", CrossAttention(config));
    norm2 = register_module("norm2", make_layer_norm(config));
  }
  W1 = register_module("W1", make_ffn_w1(config));
  W2 = register_module("W2", make_ffn_w2(config));
  norm3 = register_module("norm3", make_layer_norm(config));
  const double p = config.effective_dropout();
  dropout = register_module("dropout", Dropout(p));
}

torch::Tensor BasicDecoderWithMaskingImpl::sublayers(const torch::Tensor& x, const SelfAttentionFn& self_attention,
                                                     const AttentionMemory& memory, const torch::Tensor& memory_mask,
                                                     torch::Tensor* cross_weights,
                                                     const std::vector<RowRange>* w2_rows) {
  auto cross = [&](const torch::Tensor& z) {
    return dropout(cross_attn_layer->attend(z, memory, memory_mask, cross_weights));
  };
  auto ffn = [&](const torch::Tensor& z) { return dropout(feed_forward(z, W1, W2, dropout, config_, w2_rows)); };
  if (!cross_attn_layer) {  // decoder-only: self-attention and FFN
    if (config_.variant() == Variant::kFG) {
      const auto z = norm1(x + dropout(self_attention(x)));
      return norm3(z + ffn(z));
    }
    const auto y = x + dropout(self_attention(norm1(x)));
    return y + ffn(norm3(y));
  }
  if (config_.variant() == Variant::kFG) {
    const auto z = norm1(x + dropout(self_attention(x)));
    // DLStudio's FG decoder has no residual around cross-attention; the standard one has.
    // Without the residual's float32 sum, cross-attention's output reaches the norm in bf16
    // under autocast, and LibTorch 1.13's CPU layer_norm refuses a bf16 input beside its
    // float32 weights (CUDA's autocast runs layer_norm in float32 anyway): float32 here too.
    const auto z2 = config_.dlstudio_family() ? norm2(cross(z).to(z.scalar_type())) : norm2(z + cross(z));
    return norm3(z2 + ffn(z2));
  }
  const auto y = x + dropout(self_attention(norm1(x)));
  const auto y2 = y + cross(norm2(y));
  return y2 + ffn(norm3(y2));
}

torch::Tensor BasicDecoderWithMaskingImpl::forward(const torch::Tensor& x, const AttentionMemory& memory,
                                                   const DecoderMasks& masks, torch::Tensor* self_weights,
                                                   torch::Tensor* cross_weights) {
  // dlstudio: zero the future rows of this layer's input (DLStudio masks every layer).
  const auto input = masks.row_keep.defined() ? x * masks.row_keep : x;
  return sublayers(
      input, [&](const torch::Tensor& z) { return self_attention_layer(z, masks.self_mask, self_weights); }, memory,
      masks.memory_mask, cross_weights, masks.ffn_rows.empty() ? nullptr : &masks.ffn_rows);
}

torch::Tensor BasicDecoderWithMaskingImpl::forward_cached(const torch::Tensor& x_new, const AttentionMemory& memory,
                                                          const torch::Tensor& memory_mask, KeyValueCache& cache,
                                                          std::int64_t capacity) {
  return sublayers(
      x_new, [&](const torch::Tensor& z) { return self_attention_layer->forward_cached(z, cache, capacity); }, memory,
      memory_mask, nullptr, nullptr);
}

MasterDecoderWithMaskingImpl::MasterDecoderWithMaskingImpl(const TransformerConfig& config, std::int64_t num_decoders,
                                                           std::int64_t target_vocab_size, bool cross_attention)
    : config_(config), cross_attention_(cross_attention) {
  TORCH_CHECK(num_decoders > 0, "need at least one decoder");
  TORCH_CHECK(target_vocab_size > 0, "target vocabulary size must be positive");
  basic_decoder_arr = register_module("basic_decoder_arr", torch::nn::ModuleList());
  for (std::int64_t i = 0; i < num_decoders; ++i) {
    basic_decoder_arr->push_back(BasicDecoderWithMasking(config, cross_attention));
  }
  out = register_module("out", torch::nn::Linear(config.embedding_size(), target_vocab_size));
}

std::vector<AttentionMemory> MasterDecoderWithMaskingImpl::project_memories(const torch::Tensor& encoder_out) {
  if (!cross_attention_) return std::vector<AttentionMemory>(basic_decoder_arr->size());
  std::vector<AttentionMemory> memories;
  for (const auto& layer : *basic_decoder_arr) {
    memories.push_back(layer->as<BasicDecoderWithMaskingImpl>()->cross_attn_layer->project_memory(encoder_out));
  }
  return memories;
}

namespace {

// Weights [r*B, H, L, K] of r prefix copies -> [B, H, r, K]: row i from copy i's query at
// position i+1, the one that predicts word i+1. self_attention: the keys after position i are
// zero vectors in that copy (DLStudio zeroes the future rows), not words, so their weight is
// set to 0 -- a row's shortfall from 1 is the weight DLStudio's layout gives them.
torch::Tensor own_prefix_rows(const torch::Tensor& weights, std::int64_t copies, bool self_attention) {
  const auto batch = weights.size(0) / copies;
  const auto rows = weights.view({copies, batch, weights.size(1), weights.size(2), weights.size(3)})
                        .narrow(3, 1, copies);                      // [r, B, H, r, K]
  auto own = torch::diagonal(rows, 0, 0, 3).permute({0, 1, 3, 2});  // [B, H, r, K]
  return self_attention ? own.tril() : own.contiguous();            // row i keeps keys 0..i
}

}  // namespace

torch::Tensor MasterDecoderWithMaskingImpl::run_stack(torch::Tensor x, const std::vector<AttentionMemory>& memories,
                                                      const DecoderMasks& masks, AttentionTrace* trace,
                                                      std::int64_t trace_prefix_copies) {
  DecoderMasks last_masks = masks;
  last_masks.ffn_rows = masks.last_ffn_rows;
  for (std::size_t i = 0; i < basic_decoder_arr->size(); ++i) {
    torch::Tensor self_w, cross_w;
    const bool record = trace != nullptr;
    const bool last = i + 1 == basic_decoder_arr->size();
    x = basic_decoder_arr[i]->as<BasicDecoderWithMaskingImpl>()->forward(
        x, memories[i], last ? last_masks : masks, record ? &self_w : nullptr, record ? &cross_w : nullptr);
    if (record && trace_prefix_copies > 0) {
      trace->decoder_self.push_back(own_prefix_rows(self_w, trace_prefix_copies, true));
      if (cross_w.defined()) trace->decoder_cross.push_back(own_prefix_rows(cross_w, trace_prefix_copies, false));
    } else if (record) {
      trace->decoder_self.push_back(self_w);
      if (cross_w.defined()) trace->decoder_cross.push_back(cross_w);
    }
  }
  return x;
}

torch::Tensor MasterDecoderWithMaskingImpl::forward(const torch::Tensor& target, const torch::Tensor& encoder_out,
                                                    const torch::Tensor& memory_padding,
                                                    const torch::Tensor& target_padding, AttentionTrace* trace) {
  // In fp32 under autocast too (--precision bf16): the loss and beam scores add these up.
  return torch::log_softmax(scores(final_states(target, encoder_out, memory_padding, target_padding, trace)), -1,
                            torch::kFloat);  // [B, L-1, V]
}

torch::Tensor MasterDecoderWithMaskingImpl::final_states(const torch::Tensor& target, const torch::Tensor& encoder_out,
                                                         const torch::Tensor& memory_padding,
                                                         const torch::Tensor& target_padding, AttentionTrace* trace) {
  TORCH_CHECK(target.dim() == 3, "expected the embedded target as [B, L, M]");
  const std::int64_t batch = target.size(0), length = target.size(1);
  const std::int64_t dim = config_.embedding_size();
  const auto memories = project_memories(encoder_out);
  if (config_.dlstudio_family() && !masking) {
    // DLStudio with masking=False: every prefix step sees the same unmasked target, so
    // one pass gives them all; row k predicts word k. The trace keeps those rows too.
    const auto traced = trace != nullptr ? trace->decoder_self.size() : 0;
    auto x = run_stack(target, memories, DecoderMasks{}, trace);
    for (std::size_t i = traced; trace != nullptr && i < trace->decoder_self.size(); ++i) {
      trace->decoder_self[i] = trace->decoder_self[i].narrow(2, 1, length - 1);
      if (i < trace->decoder_cross.size()) trace->decoder_cross[i] = trace->decoder_cross[i].narrow(2, 1, length - 1);
    }
    return x.narrow(1, 1, length - 1);
  }
  if (config_.dlstudio_family()) {
    // Copy i of the target (row i*B + b) keeps rows 0..i and predicts word k = i+1.
    const std::int64_t copies = length - 1;
    DecoderMasks masks;
    masks.row_keep = prefix_row_keep(1, copies, batch, length, target.options());
    if (skip_unread_ffn_outputs) {
      masks.ffn_rows = prefix_ffn_rows(1, copies, batch, length, false);
      masks.last_ffn_rows = prefix_ffn_rows(1, copies, batch, length, true);
    }
    auto x = run_stack(target.repeat({copies, 1, 1}), memories, masks, trace, copies);  // [r*B, L, M]
    // Row k = i+1 of copy i: [r, B, r, M] -> diagonal over (copy, row) -> [B, M, r].
    auto rows = torch::diagonal(x.view({copies, batch, length, dim}).narrow(2, 1, copies), 0, 0, 2);
    return rows.permute({0, 2, 1});  // [B, L-1, M]
  }
  const std::int64_t steps = length - 1;
  DecoderMasks masks;
  if (masking) masks.self_mask = causal_mask(steps, target.options());
  if (target_padding.defined()) {
    const auto padding = key_padding_mask(target_padding.narrow(1, 0, steps));
    masks.self_mask = masks.self_mask.defined() ? masks.self_mask + padding : padding;
  }
  if (memory_padding.defined()) masks.memory_mask = key_padding_mask(memory_padding);
  return run_stack(target.narrow(1, 0, steps), memories, masks, trace);  // [B, L-1, M]
}

torch::Tensor MasterDecoderWithMaskingImpl::scores(const torch::Tensor& states) {
  auto logits = row_linear(states, out);  // [..., V]
  // -inf is exact in fp16/bf16 too; log_softmax then gives these columns -inf and the others
  // the softmax over the remaining words, and their gradient is 0. Filled in place: no index
  // tensor from the host (a captured CUDA graph replays it), and the output layer's backward
  // does not read its own output.
  for (const auto column : never_predicted) logits.select(-1, column).fill_(-INFINITY);
  return logits;
}

torch::Tensor MasterDecoderWithMaskingImpl::forward_prefix_loop(const torch::Tensor& target,
                                                                const torch::Tensor& encoder_out) {
  TORCH_CHECK(config_.dlstudio_family(), "the prefix loop is DLStudio's layouts'");
  const auto memories = project_memories(encoder_out);
  std::vector<torch::Tensor> predictions;
  for (std::int64_t k = 1; k < target.size(1); ++k) {
    predictions.push_back(predict_word(target, memories, k));
  }
  return torch::stack(predictions, 1);  // [B, L-1, V]
}

torch::Tensor MasterDecoderWithMaskingImpl::predict_word(const torch::Tensor& target,
                                                         const std::vector<AttentionMemory>& memories, std::int64_t k,
                                                         AttentionTrace* trace, bool log_probabilities) {
  const std::int64_t batch = target.size(0), length = target.size(1);
  TORCH_CHECK(k >= 1 && k < length, "prefix length k = ", k, " outside 1..", length - 1);
  DecoderMasks masks;
  masks.row_keep = prefix_row_keep(k, 1, batch, length, target.options());
  if (skip_unread_ffn_outputs) {
    masks.ffn_rows = prefix_ffn_rows(k, 1, batch, length, false);
    masks.last_ffn_rows = prefix_ffn_rows(k, 1, batch, length, true);
  }
  auto x = run_stack(target, memories, masks, trace);
  const auto logits = scores(x.select(1, k)).to(torch::kFloat);  // [B, V], fp32 under autocast too
  return log_probabilities ? torch::log_softmax(logits, -1) : logits;
}

torch::Tensor MasterDecoderWithMaskingImpl::predict_next(const torch::Tensor& x_new,
                                                         const std::vector<AttentionMemory>& memories,
                                                         const torch::Tensor& memory_mask,
                                                         std::vector<KeyValueCache>& caches, std::int64_t capacity,
                                                         bool log_probabilities) {
  TORCH_CHECK(caches.size() == basic_decoder_arr->size(), "one cache per decoder layer");
  auto x = x_new;
  for (std::size_t i = 0; i < basic_decoder_arr->size(); ++i) {
    x = basic_decoder_arr[i]->as<BasicDecoderWithMaskingImpl>()->forward_cached(x, memories[i], memory_mask, caches[i],
                                                                                capacity);
  }
  const auto logits = scores(x.select(1, x.size(1) - 1)).to(torch::kFloat);  // [B, V], fp32 under autocast too
  return log_probabilities ? torch::log_softmax(logits, -1) : logits;
}

}  // namespace dls

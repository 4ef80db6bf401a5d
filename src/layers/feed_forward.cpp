#include "dls/layers/feed_forward.h"

#include <cmath>

#include <torch/torch.h>

#include "dls/layers/row_linear.h"
#include "dls/util/precision.h"

namespace dls {

namespace {
// (input width, hidden width) of the FFN.
std::pair<std::int64_t, std::int64_t> ffn_widths(const TransformerConfig& config) {
  if (config.layout() == Layout::kDLStudio) {
    const std::int64_t flat = config.max_seq_length() * config.embedding_size();
    return {flat, 2 * flat};
  }
  return {config.embedding_size(), config.ffn_multiplier() * config.embedding_size()};
}

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

// Ranges are passed through the autograd context as a flat list: begin0, end0, begin1, ...
std::vector<RowRange> unflatten(const std::vector<std::int64_t>& flat) {
  std::vector<RowRange> rows(flat.size() / 2);
  for (std::size_t j = 0; j < rows.size(); ++j) rows[j] = RowRange{flat[2 * j], flat[2 * j + 1]};
  return rows;
}

struct ColumnBlockLinear : public torch::autograd::Function<ColumnBlockLinear> {
  // h [R, K], weight [N, K], bias [N] -> y [R, N]
  static torch::Tensor forward(AutogradContext* ctx, const torch::Tensor& h, const torch::Tensor& weight,
                               const torch::Tensor& bias, std::int64_t block,
                               const std::vector<std::int64_t>& flat_rows) {
    const auto rows = unflatten(flat_rows);
    auto y = torch::zeros({h.size(0), weight.size(0)}, h.options());
    for (std::size_t j = 0; j < rows.size(); ++j) {
      const auto [begin, end] = rows[j];
      if (begin >= end) continue;
      const auto col = static_cast<std::int64_t>(j) * block;
      auto y_block = y.narrow(0, begin, end - begin).narrow(1, col, block);  // row stride N
      torch::addmm_out(y_block, bias.narrow(0, col, block), h.narrow(0, begin, end - begin),
                       weight.narrow(0, col, block).t());
    }
    ctx->save_for_backward({h, weight});
    ctx->saved_data["block"] = block;
    ctx->saved_data["rows"] = flat_rows;
    return y;
  }

  static variable_list backward(AutogradContext* ctx, variable_list grad_outputs) {
    const auto saved = ctx->get_saved_variables();
    const auto& h = saved[0];
    const auto& weight = saved[1];
    const auto block = ctx->saved_data["block"].toInt();
    const auto rows = unflatten(ctx->saved_data["rows"].toIntVector());
    const auto grad_y = grad_outputs[0].contiguous();  // [R, N]
    auto grad_h = torch::zeros_like(h);
    auto grad_weight = torch::empty_like(weight);
    auto grad_bias = torch::empty({weight.size(0)}, weight.options());
    for (std::size_t j = 0; j < rows.size(); ++j) {
      const auto [begin, end] = rows[j];
      const auto col = static_cast<std::int64_t>(j) * block;
      auto grad_weight_block = grad_weight.narrow(0, col, block);  // [block, K], contiguous
      auto grad_bias_block = grad_bias.narrow(0, col, block);
      if (begin >= end) {
        grad_weight_block.zero_();
        grad_bias_block.zero_();
        continue;
      }
      const auto g = grad_y.narrow(0, begin, end - begin).narrow(1, col, block);  // [n, block]
      torch::mm_out(grad_weight_block, g.t(), h.narrow(0, begin, end - begin));
      grad_bias_block.copy_(g.sum(0));
      grad_h.narrow(0, begin, end - begin).addmm_(g, weight.narrow(0, col, block));
    }
    return {grad_h, grad_weight, grad_bias, torch::Tensor(), torch::Tensor()};
  }
};

}  // namespace

torch::Tensor linear_by_column_blocks(const torch::Tensor& h, const torch::Tensor& weight, const torch::Tensor& bias,
                                      std::int64_t block, const std::vector<RowRange>& rows) {
  TORCH_CHECK(h.dim() == 2 && weight.dim() == 2 && bias.dim() == 1,
              "linear_by_column_blocks expects h [R, K], weight [N, K], bias [N]");
  TORCH_CHECK(block > 0 && weight.size(0) == block * static_cast<std::int64_t>(rows.size()),
              "linear_by_column_blocks: ", rows.size(), " blocks of ", block, " columns for a weight of ",
              weight.size(0), " rows");
  std::vector<std::int64_t> flat;
  for (const auto& r : rows) {
    TORCH_CHECK(r.begin >= r.end || (r.begin >= 0 && r.end <= h.size(0)), "linear_by_column_blocks: rows [", r.begin,
                ", ", r.end, ") outside 0..", h.size(0));
    flat.push_back(r.begin);
    flat.push_back(r.end);
  }
  // Autocast does not reach inside a custom function: its products run in the autocast type
  // as W2(h) would.
  return ColumnBlockLinear::apply(util::in_autocast_type(h).contiguous(), util::in_autocast_type(weight),
                                  util::in_autocast_type(bias), block, flat);
}

torch::nn::Linear make_ffn_w1(const TransformerConfig& config) {
  const auto [in, hidden] = ffn_widths(config);
  return torch::nn::Linear(in, hidden);
}

torch::nn::Linear make_ffn_w2(const TransformerConfig& config) {
  const auto [in, hidden] = ffn_widths(config);
  return torch::nn::Linear(hidden, in);
}

torch::nn::LayerNorm make_layer_norm(const TransformerConfig& config) {
  return torch::nn::LayerNorm(torch::nn::LayerNormOptions({config.embedding_size()}));
}

torch::Tensor feed_forward(const torch::Tensor& x, torch::nn::Linear& W1, torch::nn::Linear& W2, Dropout& dropout,
                           const TransformerConfig& config, const std::vector<RowRange>* w2_rows) {
  if (config.layout() == Layout::kDLStudio) {
    // [B, L, M] -> [B, L*M] -> [B, 2*L*M] -> [B, L*M] -> [B, L, M]
    const auto hidden = torch::relu(W1(x.reshape({x.size(0), -1})));
    if (w2_rows != nullptr) {
      return linear_by_column_blocks(hidden, W2->weight, W2->bias, x.size(2), *w2_rows).view(x.sizes());
    }
    return W2(hidden).view(x.sizes());
  }
  return row_linear(dropout(torch::relu(row_linear(x, W1))), W2);  // [B, L, M] -> [B, L, f*M] -> [B, L, M]
}

torch::Tensor key_padding_mask(const torch::Tensor& key_padding) {
  TORCH_CHECK(key_padding.dim() == 2 && key_padding.scalar_type() == torch::kBool,
              "key padding must be a [B, L] bool tensor");
  // Made on the padding's device: no upload (which a CUDA graph could not record).
  return torch::zeros(key_padding.sizes(), torch::TensorOptions(torch::kFloat32).device(key_padding.device()))
      .masked_fill(key_padding, -INFINITY)
      .view({key_padding.size(0), 1, 1, key_padding.size(1)});
}

torch::Tensor causal_mask(std::int64_t length, const torch::TensorOptions& options) {
  auto hidden = torch::ones({length, length}, options.dtype(torch::kBool)).triu(1);
  return torch::zeros({1, 1, length, length}, options).masked_fill(hidden, -INFINITY);
}

}  // namespace dls

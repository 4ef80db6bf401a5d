#include "attention_core.h"

#include <cmath>

#include "dls/layers/attention.h"
#include "dls/layers/row_linear.h"
#include "dls/layers/small_batched_matmul.h"

namespace dls::detail {

torch::Tensor scaled_attention(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v, Layout layout,
                               const torch::Tensor& mask, torch::nn::Dropout& dropout, torch::Tensor* weights) {
  const double scale = 1.0 / std::sqrt(static_cast<double>(q.size(-1)));
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

namespace {

// The chosen projections of every head, head by head: heads x parts layers.
std::vector<const torch::nn::Linear*> head_projections(const torch::nn::ModuleList& heads,
                                                       std::initializer_list<Projection> parts) {
  std::vector<const torch::nn::Linear*> layers;
  layers.reserve(heads->size() * parts.size());
  for (const auto& module : *heads) {
    auto& head = *module->as<AttentionHeadImpl>();
    const torch::nn::Linear* linear[3] = {&head.WQ, &head.WK, &head.WV};
    for (const Projection part : parts) layers.push_back(linear[static_cast<int>(part)]);
  }
  return layers;
}

}  // namespace

StackedWeights stack_heads(const torch::nn::ModuleList& heads, std::initializer_list<Projection> parts) {
  const auto layers = head_projections(heads, parts);
  const std::size_t n = parts.size();
  std::vector<torch::Tensor> weights, biases;
  for (std::size_t first = 0; first < layers.size(); first += n) {  // one head's n projections
    std::vector<torch::Tensor> w, b;
    for (std::size_t i = first; i < first + n; ++i) {
      w.push_back((*layers[i])->weight);
      b.push_back((*layers[i])->bias);
    }
    weights.push_back(n == 1 ? w[0] : torch::cat(w, 0));
    biases.push_back(n == 1 ? b[0] : torch::cat(b, 0));
  }
  return {torch::stack(weights), torch::stack(biases)};
}

StackedWeights StackedHeadsCache::get(const torch::nn::ModuleList& heads, std::initializer_list<Projection> parts) {
  const auto layers = head_projections(heads, parts);
  // Only on the CPU: a CUDA graph's replay writes the weights without moving their versions.
  if (torch::GradMode::is_enabled() || !(*layers.front())->weight.device().is_cpu()) return stack_heads(heads, parts);
  std::vector<std::pair<const void*, std::int64_t>> sources;
  sources.reserve(layers.size() * 2);
  for (const auto* layer : layers) {
    for (const auto& t : {(*layer)->weight, (*layer)->bias}) sources.emplace_back(t.data_ptr(), t._version());
  }
  std::lock_guard<std::mutex> lock(mutex_);
  if (sources != sources_) {
    stacked_ = stack_heads(heads, parts);
    sources_ = std::move(sources);
  }
  return stacked_;
}

torch::Tensor project_heads(const torch::Tensor& x, const StackedWeights& stacked, const TransformerConfig& config,
                            std::int64_t n) {
  const std::int64_t batch = x.size(0), length = x.size(1);
  const std::int64_t heads = config.num_heads(), s = config.head_size();
  if (config.layout() == Layout::kPositionwise) {
    // [B, L, M] -> [H, B*L, s]: each head's slice at every position.
    auto slices = x.view({batch, length, heads, s}).permute({2, 0, 1, 3}).reshape({heads, batch * length, s});
    // [H, B*L, s] x [H, s, n*s] + [H, 1, n*s] -> [H, B, L, n, s] -> [n, H, B, L, s]
    auto y = torch::baddbmm(stacked.bias.unsqueeze(1), slices, stacked.weight.transpose(1, 2));
    return y.view({heads, batch, length, n, s}).permute({3, 0, 1, 2, 4});
  }
  if (config.layout() == Layout::kDLStudio) {
    // [B, L, M] -> [B, L, H, s] -> [H, B, L*s]: each head's slice, flattened over (L, s).
    auto slices = x.view({batch, length, heads, s}).permute({2, 0, 1, 3}).reshape({heads, batch, length * s});
    // [H, B, L*s] x [H, L*s, n*L*s] + [H, 1, n*L*s] -> [H, B, n*L*s]
    auto y = torch::baddbmm(stacked.bias.unsqueeze(1), slices, stacked.weight.transpose(1, 2));
    // [H, B, n, L, s] -> [n, H, B, L, s]
    return y.view({heads, batch, n, length, s}).permute({2, 0, 1, 3, 4});
  }
  // [B, L, M] x [M, H*n*s] -> [B, L, H, n, s] -> [n, B, H, L, s]
  auto y = row_linear(x, stacked.weight.reshape({heads * n * s, -1}), stacked.bias.reshape({heads * n * s}));
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

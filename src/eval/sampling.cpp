#include "dls/eval/sampling.h"

#include <limits>

#include <torch/torch.h>

namespace dls::eval {

torch::Tensor top_k_filter(const torch::Tensor& logits, std::int64_t k) {
  if (k <= 0 || k >= logits.size(-1)) return logits;
  const auto kth = std::get<0>(logits.topk(k, -1)).narrow(-1, k - 1, 1);  // [..., 1]
  return logits.masked_fill(logits < kth, -std::numeric_limits<double>::infinity());
}

torch::Tensor top_p_filter(const torch::Tensor& logits, double p) {
  if (p >= 1) return logits;
  const auto [sorted, order] = logits.sort(-1, /*descending=*/true);
  const auto cumulative = torch::softmax(sorted.to(torch::kDouble), -1).cumsum(-1);
  // Drop a token when the tokens before it already reach p: the first always stays.
  const auto before = cumulative - torch::softmax(sorted.to(torch::kDouble), -1);
  const auto drop_sorted = before >= p;
  const auto drop = torch::zeros_like(drop_sorted).scatter(-1, order, drop_sorted);
  return logits.masked_fill(drop, -std::numeric_limits<double>::infinity());
}

torch::Tensor sample_rows(const torch::Tensor& logits, const SamplingOptions& options,
                          const std::vector<double>& uniforms) {
  TORCH_CHECK(logits.dim() == 2 && logits.size(0) == static_cast<std::int64_t>(uniforms.size()),
              "sample_rows: logits [R, V] and R uniforms");
  if (options.temperature <= 0) return logits.argmax(-1).to(torch::kCPU);
  // In double and shifted so that each row's largest is 0: a tiny temperature (1e-40) then
  // sends the others to -inf, not every logit to +inf (whose softmax is NaN), and sampling
  // tends to the greedy choice as it should.
  const auto scores = logits.to(torch::kCPU, torch::kDouble);
  const auto shifted = (scores - std::get<0>(scores.max(-1, /*keepdim=*/true))) / options.temperature;
  const auto filtered = top_p_filter(top_k_filter(shifted, options.top_k), options.top_p);
  const auto probs = torch::softmax(filtered, -1).contiguous();
  const auto vocab = probs.size(1);
  auto chosen = torch::empty({probs.size(0)}, torch::kLong);
  for (std::int64_t r = 0; r < probs.size(0); ++r) {
    const auto* p = probs.data_ptr<double>() + r * vocab;
    double cumulative = 0;
    std::int64_t token = -1, last = 0;
    for (std::int64_t i = 0; i < vocab && token < 0; ++i) {
      if (p[i] <= 0) continue;
      last = i;
      cumulative += p[i];
      if (uniforms[static_cast<std::size_t>(r)] < cumulative) token = i;
    }
    chosen[r] = token >= 0 ? token : last;  // rounding left u above the total: the last token kept
  }
  return chosen;
}

}  // namespace dls::eval

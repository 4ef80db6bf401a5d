#include "dls/eval/lm_generation.h"

#include <limits>
#include <random>

#include <torch/torch.h>

namespace dls::eval {

namespace {

// A uniform double in [0, 1) from 53 bits of the engine (the same on every platform).
double uniform(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

// The token chosen from logits [V].
std::int64_t choose(const torch::Tensor& logits, const SamplingOptions& options, std::mt19937_64& rng) {
  if (options.temperature <= 0) return logits.argmax().item<std::int64_t>();
  // In double and shifted so that the largest is 0: a tiny temperature (1e-40) then sends the
  // others to -inf, not every logit to +inf (whose softmax is NaN), and sampling tends to
  // the greedy choice as it should.
  const auto scores = logits.to(torch::kDouble);
  const auto shifted = (scores - scores.max()) / options.temperature;
  auto filtered = top_p_filter(top_k_filter(shifted, options.top_k), options.top_p);
  const auto probs = torch::softmax(filtered.to(torch::kDouble), -1).contiguous();
  const auto* p = probs.data_ptr<double>();
  const double u = uniform(rng);
  double cumulative = 0;
  std::int64_t last = 0;
  for (std::int64_t i = 0; i < probs.size(0); ++i) {
    if (p[i] <= 0) continue;
    last = i;
    cumulative += p[i];
    if (u < cumulative) return i;
  }
  return last;  // rounding left u above the total
}

}  // namespace

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

Generation generate(LanguageModel& model, const std::vector<std::int64_t>& prompt, std::int64_t eos,
                    const SamplingOptions& options, bool cached) {
  TORCH_CHECK(!prompt.empty(), "the prompt needs at least the SOS token");
  const std::int64_t capacity = model->config().transformer().max_seq_length();
  TORCH_CHECK(static_cast<std::int64_t>(prompt.size()) < capacity, "a prompt of ", prompt.size(),
              " tokens leaves no room in L = ", capacity);
  torch::NoGradGuard no_grad;
  const bool was_training = model->is_training();
  model->eval();
  const auto device = model->parameters().front().device();
  std::mt19937_64 rng(options.seed);
  std::vector<std::int64_t> sequence = prompt;
  std::vector<KeyValueCache> caches(static_cast<std::size_t>(model->config().num_decoders()));
  auto row = [&](std::size_t from) {  // tokens sequence[from..] as [1, T]
    return torch::tensor(
               std::vector<std::int64_t>(sequence.begin() + static_cast<std::ptrdiff_t>(from), sequence.end()),
               torch::kInt64)
        .unsqueeze(0)
        .to(device);
  };
  Generation out;
  std::size_t fed = 0;  // tokens already in the caches
  while (static_cast<std::int64_t>(sequence.size()) < capacity) {
    torch::Tensor logits;  // [V]
    if (cached) {
      logits = model->next_logits(row(fed), caches).squeeze(0);
      fed = sequence.size();
    } else {
      const auto states = model->final_states(row(0));  // [1, T, M]
      logits = model->master_decoder->scores(states.select(1, states.size(1) - 1)).to(torch::kFloat).squeeze(0);
    }
    logits = logits.to(torch::kCPU);
    const auto token = choose(logits, options, rng);
    out.logits.push_back(logits);
    out.tokens.push_back(token);
    sequence.push_back(token);
    if (token == eos) break;
  }
  model->train(was_training);
  return out;
}

}  // namespace dls::eval

#include "dls/eval/lm_generation.h"

#include <random>

#include <torch/torch.h>

namespace dls::eval {

namespace {

// A uniform double in [0, 1) from 53 bits of the engine (the same on every platform).
double uniform(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

// The token chosen from logits [V].
std::int64_t choose(const torch::Tensor& logits, const SamplingOptions& options, std::mt19937_64& rng) {
  if (options.temperature <= 0) return logits.argmax().item<std::int64_t>();
  return sample_rows(logits.unsqueeze(0), options, {uniform(rng)})[0].item<std::int64_t>();
}

}  // namespace

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

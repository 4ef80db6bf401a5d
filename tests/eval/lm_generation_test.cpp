// Sampling filters and generation with cached keys/values against the full pass.
#include <gtest/gtest.h>

#include <cmath>

#include <torch/torch.h>

#include "dls/eval/lm_generation.h"
#include "support/small_models.h"

namespace dls::eval {
namespace {

std::vector<bool> kept(const torch::Tensor& filtered) {
  std::vector<bool> out;
  for (std::int64_t i = 0; i < filtered.size(-1); ++i) out.push_back(std::isfinite(filtered[i].item<double>()));
  return out;
}

TEST(TopKFilter, KeepsTheKLargest) {
  const auto logits = torch::tensor({1.0, 4.0, 2.0, 3.0, 0.5});
  EXPECT_EQ(kept(top_k_filter(logits, 2)), (std::vector<bool>{false, true, false, true, false}));
  EXPECT_EQ(kept(top_k_filter(logits, 1)), (std::vector<bool>{false, true, false, false, false}));
  EXPECT_TRUE(torch::equal(top_k_filter(logits, 0), logits));
  EXPECT_TRUE(torch::equal(top_k_filter(logits, 5), logits));
  // The kept entries keep their values.
  EXPECT_EQ(top_k_filter(logits, 2)[3].item<double>(), 3.0);
  // Rows of a batch are filtered each on its own.
  const auto rows = torch::tensor({{1.0, 2.0, 3.0}, {3.0, 2.0, 1.0}});
  EXPECT_EQ(kept(top_k_filter(rows, 1)[1]), (std::vector<bool>{true, false, false}));
}

TEST(TopPFilter, KeepsTheSmallestNucleusReachingP) {
  // Probabilities 0.5, 0.3, 0.15, 0.05 (in a shuffled order).
  const auto probs = torch::tensor({0.15, 0.5, 0.05, 0.3}, torch::kDouble);
  const auto logits = probs.log();
  EXPECT_EQ(kept(top_p_filter(logits, 0.5)), (std::vector<bool>{false, true, false, false}));
  EXPECT_EQ(kept(top_p_filter(logits, 0.7)), (std::vector<bool>{false, true, false, true}));
  EXPECT_EQ(kept(top_p_filter(logits, 0.81)), (std::vector<bool>{true, true, false, true}));
  EXPECT_EQ(kept(top_p_filter(logits, 0.99)), (std::vector<bool>{true, true, true, true}));
  EXPECT_EQ(kept(top_p_filter(logits, 1e-6)), (std::vector<bool>{false, true, false, false}));  // at least one
  EXPECT_TRUE(torch::equal(top_p_filter(logits, 1.0), logits));
}

LanguageModel generation_model() {
  LanguageModelConfig config;
  config.transformer(testing::block_config(Variant::kPreLN, Layout::kVaswani, 16, 4, 12).dropout(0.1));
  config.num_decoders(2).vocab_size(9);
  torch::manual_seed(3);
  return LanguageModel(config);
}

TEST(Generate, CachedEqualsTheFullPass) {
  auto model = generation_model();
  SamplingOptions greedy;
  greedy.temperature = 0;
  const std::vector<std::int64_t> prompt{0, 5, 6};
  // EOS = -1: never drawn, so both run to L tokens.
  const auto cached = generate(model, prompt, -1, greedy, true);
  const auto full = generate(model, prompt, -1, greedy, false);
  ASSERT_EQ(cached.tokens.size(), 9u);
  EXPECT_EQ(cached.tokens, full.tokens);
  for (std::size_t i = 0; i < cached.logits.size(); ++i) {
    EXPECT_TRUE(torch::allclose(cached.logits[i], full.logits[i], 1e-4, 1e-5)) << "step " << i;
  }
  EXPECT_TRUE(model->is_training());  // put back as it was
}

TEST(Generate, SamplingIsReproducibleAndTopOneIsGreedy) {
  auto model = generation_model();
  SamplingOptions sampling;
  sampling.temperature = 2.0;
  sampling.seed = 11;
  const std::vector<std::int64_t> prompt{0};
  const auto a = generate(model, prompt, -1, sampling);
  EXPECT_EQ(generate(model, prompt, -1, sampling).tokens, a.tokens);
  bool differs = false;
  for (std::uint64_t seed = 12; seed < 20 && !differs; ++seed) {
    sampling.seed = seed;
    differs = generate(model, prompt, -1, sampling).tokens != a.tokens;
  }
  EXPECT_TRUE(differs) << "every seed drew the same text";
  sampling.top_k = 1;
  SamplingOptions greedy;
  greedy.temperature = 0;
  EXPECT_EQ(generate(model, prompt, -1, sampling).tokens, generate(model, prompt, -1, greedy).tokens);
}

// A temperature near 0 is greedy in the limit; logits / 1e-40 overflowed float to +inf and
// the softmax to NaN, which fell to the vocabulary's last word.
TEST(Generate, TinyTemperaturesAreGreedy) {
  auto model = generation_model();
  SamplingOptions greedy;
  greedy.temperature = 0;
  const auto expected = generate(model, {0}, -1, greedy).tokens;
  for (const double temperature : {1e-40, 1e-300, 4.9e-324}) {
    SamplingOptions cold;
    cold.temperature = temperature;
    cold.seed = 5;
    EXPECT_EQ(generate(model, {0}, -1, cold).tokens, expected) << "temperature " << temperature;
  }
}

// Any temperature samples real tokens: 1e-8 as good as greedy, 1e8 all but uniformly.
TEST(Generate, AnyTemperatureSamplesRealTokens) {
  auto model = generation_model();
  for (const double temperature : {1e-8, 1e8, 1e300}) {
    SamplingOptions sampling;
    sampling.temperature = temperature;
    sampling.seed = 9;
    const auto generated = generate(model, {0}, -1, sampling);
    ASSERT_FALSE(generated.tokens.empty()) << "temperature " << temperature;
    for (const auto token : generated.tokens) {
      EXPECT_GE(token, 0) << "temperature " << temperature;
      EXPECT_LT(token, 9) << "temperature " << temperature;
    }
    EXPECT_EQ(generate(model, {0}, -1, sampling).tokens, generated.tokens) << "reproducible";
  }
}

TEST(Generate, StopsAtEos) {
  auto model = generation_model();
  SamplingOptions greedy;
  greedy.temperature = 0;
  const auto free_run = generate(model, {0}, -1, greedy);
  const auto eos = free_run.tokens[2];  // make the third token the end
  const auto stopped = generate(model, {0}, eos, greedy);
  ASSERT_LE(stopped.tokens.size(), 3u);
  EXPECT_EQ(stopped.tokens.back(), eos);
}

// Running text continues past the model's L (12): the cached steps while the text fits its
// block of 11, then the last 11 tokens again each step -- equal to running the window every
// step, and to the same window fed through the plain pass by hand.
TEST(ContinueText, PastTheBlockTheLatestBlockIsRead) {
  auto model = generation_model();
  SamplingOptions greedy;
  greedy.temperature = 0;
  const std::vector<std::int64_t> prompt{4, 5, 6};
  const auto cached = continue_text(model, prompt, 30, greedy, true);
  const auto full = continue_text(model, prompt, 30, greedy, false);
  ASSERT_EQ(cached.tokens.size(), 30u);  // exactly as many as asked, EOS (1) or not
  EXPECT_EQ(cached.tokens, full.tokens);
  for (std::size_t i = 0; i < cached.logits.size(); ++i) {
    EXPECT_TRUE(torch::allclose(cached.logits[i], full.logits[i], 1e-4, 1e-5)) << "step " << i;
  }
  // Step 20 by hand: the 11 tokens before it, the logits of the last position.
  std::vector<std::int64_t> sequence = prompt;
  sequence.insert(sequence.end(), cached.tokens.begin(), cached.tokens.end());
  const std::size_t step = 20, end = prompt.size() + step;
  model->eval();
  torch::NoGradGuard no_grad;
  const auto window = torch::tensor(std::vector<std::int64_t>(sequence.begin() + static_cast<std::ptrdiff_t>(end - 11),
                                                              sequence.begin() + static_cast<std::ptrdiff_t>(end)))
                          .unsqueeze(0);
  const auto states = model->final_states(window);
  const auto logits = model->master_decoder->scores(states.select(1, 10)).squeeze(0);
  EXPECT_TRUE(torch::allclose(cached.logits[step], logits, 1e-4, 1e-5));
  // Tokens never to be chosen are not, whatever their logits.
  SamplingOptions hot;
  hot.temperature = 50;
  for (const auto token : continue_text(model, prompt, 40, hot, true, {0, 1, 2, 3, 4, 5, 6, 7}).tokens)
    EXPECT_EQ(token, 8);
  // A prompt longer than the block is read from its end.
  std::vector<std::int64_t> long_prompt(25, 7);
  EXPECT_EQ(continue_text(model, long_prompt, 3, greedy).tokens.size(), 3u);
}

}  // namespace
}  // namespace dls::eval

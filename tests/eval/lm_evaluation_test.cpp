// Perplexity of a language model: the uniform model, padding, batches.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include <spdlog/spdlog.h>
#include <torch/torch.h>

#include "dls/data/vocabulary.h"
#include "dls/eval/lm_evaluation.h"
#include "dls/models/language_model_loss.h"
#include "support/small_models.h"

namespace dls::eval {
namespace {

constexpr std::int64_t kPad = data::Vocabulary::kPad;

LanguageModel perplexity_model(std::int64_t vocab) {
  LanguageModelConfig config;
  config.transformer(testing::block_config(Variant::kFG, Layout::kVaswani, 8, 2, 6).dropout(0.0));
  config.num_decoders(1).vocab_size(vocab);
  torch::manual_seed(5);
  return LanguageModel(config);
}

const torch::Tensor& sentences() {
  static const auto rows = torch::tensor(std::vector<std::int64_t>{0, 4, 5, 6, 1, kPad,        //
                                                                   0, 7, 1, kPad, kPad, kPad,  //
                                                                   0, 8, 9, 10, 11, 1})
                               .view({3, 6});
  return rows;
}

TEST(TokenLikelihood, UniformModelHasPerplexityOfTheVocabularySize) {
  auto model = perplexity_model(23);
  {
    torch::NoGradGuard no_grad;
    model->master_decoder->out->weight.zero_();
    model->master_decoder->out->bias.zero_();
  }
  const auto result = token_likelihood(model, sentences(), kPad);
  EXPECT_EQ(result.tokens, 4 + 2 + 5);  // the words and EOS of each sentence, no padding
  EXPECT_NEAR(result.perplexity(), 23.0, 1e-3);
}

// A long pass shows a progress line (at info level, once it has run progress_after_s); a
// short one says nothing.
TEST(TokenLikelihood, ALongPassShowsItsProgress) {
  auto model = perplexity_model(12);
  const auto level = spdlog::get_level();
  spdlog::set_level(spdlog::level::info);
  ::testing::internal::CaptureStderr();
  const auto shown = token_likelihood(model, sentences(), kPad, 1, "validation", 0.0);
  const auto line = ::testing::internal::GetCapturedStderr();
  ::testing::internal::CaptureStderr();
  token_likelihood(model, sentences(), kPad, 1, "validation");
  const auto quiet = ::testing::internal::GetCapturedStderr();
  spdlog::set_level(level);
  EXPECT_NE(line.find("validation"), std::string::npos) << line;
  EXPECT_NE(line.find("3/3"), std::string::npos) << line;
  EXPECT_EQ(quiet, "");
  EXPECT_EQ(shown.tokens, 11);
}

TEST(TokenLikelihood, IsTheMeanOverTokensNotOverBatches) {
  auto model = perplexity_model(12);
  const auto whole = token_likelihood(model, sentences(), kPad, 256);
  const auto in_ones = token_likelihood(model, sentences(), kPad, 1);
  EXPECT_EQ(whole.tokens, in_ones.tokens);
  EXPECT_NEAR(whole.nll_sum, in_ones.nll_sum, 1e-4);
  // By hand: -log p of every real target.
  torch::NoGradGuard no_grad;
  model->eval();
  const auto log_probs = model(sentences().narrow(1, 0, 5));  // [3, 5, V]
  const auto targets = sentences().narrow(1, 1, 5);
  const auto nll = -log_probs.gather(2, targets.clamp_max(11).unsqueeze(2)).squeeze(2);
  const double expected = (nll * (targets != kPad)).sum().item<double>();
  EXPECT_NEAR(whole.nll_sum, expected, 1e-4);
  EXPECT_NEAR(whole.perplexity(), std::exp(expected / 11.0), 1e-3);
}

TEST(LanguageModelLoss, IgnoresPadding) {
  auto model = perplexity_model(12);
  model->eval();
  LossOptions options;
  const auto with_padding = language_model_loss(model, sentences().narrow(0, 1, 1), options);
  const auto trimmed = language_model_loss(model, sentences().narrow(0, 1, 1).narrow(1, 0, 3), options);
  EXPECT_NEAR(with_padding.item<double>(), trimmed.item<double>(), 1e-5);
}

}  // namespace
}  // namespace dls::eval

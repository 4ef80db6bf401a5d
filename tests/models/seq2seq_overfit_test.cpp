// Both layouts and both variants can learn 8 sentence pairs by heart in a few seconds.
#include <gtest/gtest.h>

#include <torch/torch.h>

#include "dls/models/seq2seq.h"
#include "support/small_models.h"

namespace dls {
namespace {

class Overfit : public ::testing::TestWithParam<testing::VariantLayout> {};

TEST_P(Overfit, EightPairsAreLearnt) {
  torch::manual_seed(31);
  auto config = testing::small_config(GetParam().variant, GetParam().layout);
  config.transformer().embedding_size(32);
  auto model = Seq2SeqTransformer(config);
  const auto src = testing::random_tokens(8, 6, 23);
  const auto tgt = testing::random_tokens(8, 6, 29);
  torch::optim::Adam optimizer(model->parameters(), torch::optim::AdamOptions(3e-3));
  const auto targets = tgt.narrow(1, 1, 5).reshape({-1});
  double loss_value = 0;
  for (int step = 0; step < 300; ++step) {
    optimizer.zero_grad();
    const auto log_probs = model(src, tgt).reshape({-1, 29});
    const auto loss = torch::nll_loss(log_probs, targets);
    loss.backward();
    optimizer.step();
    loss_value = loss.item<double>();
    if (loss_value < 0.02) {
      std::cout << "converged after " << step + 1 << " steps\n";
      break;
    }
  }
  EXPECT_LT(loss_value, 0.02);
  model->eval();
  torch::NoGradGuard no_grad;
  EXPECT_TRUE(torch::equal(model(src, tgt).argmax(-1), tgt.narrow(1, 1, 5)));
}

INSTANTIATE_TEST_SUITE_P(All, Overfit, ::testing::ValuesIn(testing::kAllVariantLayouts), testing::name_of);

}  // namespace
}  // namespace dls

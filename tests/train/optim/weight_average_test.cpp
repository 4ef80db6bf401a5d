#include "dls/train/optim/weight_average.h"

#include <gtest/gtest.h>

#include <algorithm>

#include <torch/torch.h>

namespace dls::train {
namespace {

TEST(ExponentialMovingAverage, EachUpdateIsDTimesTheAveragePlusOneMinusDTimesTheWeights) {
  // d = min(D, (1 + n) / (10 + n)) for the n-th update: 0.1, 0.18, 0.25, 0.31, ... up to D.
  torch::manual_seed(5);
  auto w = torch::randn({3, 4});
  auto b = torch::randn({4}, torch::kFloat64);  // averaged in fp32 whatever the weights' dtype
  const double d = 0.9;
  ExponentialMovingAverage ema({w, b}, d);
  EXPECT_EQ(ema.averages()[1].scalar_type(), torch::kFloat32);
  // The formula, written out in fp64 over a few steps.
  auto expected_w = w.to(torch::kFloat64), expected_b = b.clone();
  for (int step = 0; step < 100; ++step) {
    w = torch::randn({3, 4});
    b = torch::randn({4}, torch::kFloat64);
    const double d_n = std::min(d, (1.0 + step) / (10.0 + step));
    EXPECT_DOUBLE_EQ(ema.current_decay(), d_n);
    ema.update({w, b});
    expected_w = d_n * expected_w + (1 - d_n) * w.to(torch::kFloat64);
    expected_b = d_n * expected_b + (1 - d_n) * b;
  }
  EXPECT_EQ(ema.updates(), 100);
  EXPECT_DOUBLE_EQ(ema.current_decay(), d) << "warmed up: the decay asked for";
  EXPECT_TRUE(torch::allclose(ema.averages()[0].to(torch::kFloat64), expected_w, 1e-5, 1e-5));
  EXPECT_TRUE(torch::allclose(ema.averages()[1].to(torch::kFloat64), expected_b, 1e-5, 1e-5));
  EXPECT_FALSE(torch::allclose(ema.averages()[0], w)) << "the average is not the last weights";
  EXPECT_THROW(ema.update({w}), std::invalid_argument);
  EXPECT_THROW(ExponentialMovingAverage({w}, 1.0), std::invalid_argument);
}

// The average of a short run is made of that run's weights, not of the initial ones: from
// zeros, 1,820 updates with ones at D = 0.999 give 0.999^1820 = 16 % of zeros without the
// warm-up of the decay; with it, (1 * 2 * ... * 1820) / (10 * 11 * ... ) leaves almost none.
TEST(ExponentialMovingAverage, AShortRunsAverageForgetsTheInitialWeights) {
  auto w = torch::zeros({2});
  ExponentialMovingAverage ema({w}, 0.999);
  const auto ones = torch::ones({2});
  for (int step = 0; step < 1820; ++step) ema.update({ones});
  EXPECT_GT(ema.averages()[0].min().item<double>(), 0.999);
  ExponentialMovingAverage resumed({w}, 0.999);
  resumed.set_updates(1'000'000'000);  // an average written before the warm-up: the full decay
  EXPECT_DOUBLE_EQ(resumed.current_decay(), 0.999);
}

TEST(SwappedWeights, PutsTheAverageInAndTheOriginalsBackBitForBit) {
  auto w = torch::randn({5});
  const auto original = w.clone();
  const auto average = torch::randn({5});
  {
    const SwappedWeights swapped({w}, {average});
    EXPECT_TRUE(torch::equal(w, average));
  }
  EXPECT_TRUE(torch::equal(w, original));
}

}  // namespace
}  // namespace dls::train

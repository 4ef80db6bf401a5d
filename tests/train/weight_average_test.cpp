#include "dls/train/weight_average.h"

#include <gtest/gtest.h>

#include <torch/torch.h>

namespace dls::train {
namespace {

TEST(ExponentialMovingAverage, EachUpdateIsDTimesTheAveragePlusOneMinusDTimesTheWeights) {
  torch::manual_seed(5);
  auto w = torch::randn({3, 4});
  auto b = torch::randn({4}, torch::kFloat64);  // averaged in fp32 whatever the weights' dtype
  const double d = 0.9;
  ExponentialMovingAverage ema({w, b}, d);
  EXPECT_EQ(ema.averages()[1].scalar_type(), torch::kFloat32);
  // The formula, written out in fp64 over a few steps.
  auto expected_w = w.to(torch::kFloat64), expected_b = b.clone();
  for (int step = 0; step < 4; ++step) {
    w = torch::randn({3, 4});
    b = torch::randn({4}, torch::kFloat64);
    ema.update({w, b});
    expected_w = d * expected_w + (1 - d) * w.to(torch::kFloat64);
    expected_b = d * expected_b + (1 - d) * b;
  }
  EXPECT_TRUE(torch::allclose(ema.averages()[0].to(torch::kFloat64), expected_w, 1e-6, 1e-6));
  EXPECT_TRUE(torch::allclose(ema.averages()[1].to(torch::kFloat64), expected_b, 1e-6, 1e-6));
  EXPECT_FALSE(torch::allclose(ema.averages()[0], w)) << "the average is not the last weights";
  EXPECT_THROW(ema.update({w}), std::invalid_argument);
  EXPECT_THROW(ExponentialMovingAverage({w}, 1.0), std::invalid_argument);
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

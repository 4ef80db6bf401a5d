// GradScaler (fp16 loss scaling) on CPU tensors: unscaling, a skipped step on inf or NaN with
// the scale halved, growth after growth_interval good steps.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include <torch/torch.h>

#include "dls/train/optim/grad_scaler.h"

namespace dls::train {
namespace {

torch::Tensor scaler_parameter_with_grad(const torch::Tensor& grad) {
  auto p = torch::zeros_like(grad).requires_grad_(true);
  p.mutable_grad() = grad.clone();
  return p;
}

TEST(GradScaler, ScalesTheLossAndUnscalesGradients) {
  GradScaler scaler(GradScalerOptions{1024.0, 2.0, 0.5, 3});
  EXPECT_DOUBLE_EQ(scaler.scale_loss(torch::tensor(0.5)).item<double>(), 512.0);
  // Gradients of the scaled loss: 1024 times the true ones.
  const auto p = scaler_parameter_with_grad(torch::tensor({1024.0f, -2048.0f}));
  const auto q = torch::zeros({2}).requires_grad_(true);  // no gradient: left alone
  EXPECT_TRUE(scaler.unscale({p, q}));
  EXPECT_TRUE(torch::equal(p.grad(), torch::tensor({1.0f, -2.0f})));
  EXPECT_FALSE(q.grad().defined());
}

TEST(GradScaler, InfOrNanSkipsTheStepAndHalvesTheScale) {
  GradScaler scaler(GradScalerOptions{1024.0, 2.0, 0.5, 3});
  for (const float bad : {std::numeric_limits<float>::infinity(), std::nanf("")}) {
    const auto good = scaler_parameter_with_grad(torch::ones({3}));
    const auto broken = scaler_parameter_with_grad(torch::tensor({1.0f, bad}));
    const double before = scaler.scale();
    const bool finite = scaler.unscale({good, broken});
    EXPECT_FALSE(finite);
    scaler.update(finite);
    EXPECT_DOUBLE_EQ(scaler.scale(), before / 2);
  }
  EXPECT_EQ(scaler.skipped_steps(), 2);
}

TEST(GradScaler, GrowsAfterGrowthIntervalGoodStepsInARow) {
  GradScaler scaler(GradScalerOptions{1024.0, 2.0, 0.5, 3});
  scaler.update(true);
  scaler.update(true);
  EXPECT_DOUBLE_EQ(scaler.scale(), 1024.0);
  scaler.update(true);
  EXPECT_DOUBLE_EQ(scaler.scale(), 2048.0);
  // A bad step resets the count: two good ones after it do not grow the scale.
  scaler.update(false);
  scaler.update(true);
  scaler.update(true);
  EXPECT_DOUBLE_EQ(scaler.scale(), 1024.0);
  scaler.update(true);
  EXPECT_DOUBLE_EQ(scaler.scale(), 2048.0);
  EXPECT_EQ(scaler.skipped_steps(), 1);
}

TEST(GradScaler, RefusesSettingsThatCannotWork) {
  EXPECT_THROW(GradScaler(GradScalerOptions{0.0, 2.0, 0.5, 3}), c10::Error);
  EXPECT_THROW(GradScaler(GradScalerOptions{1.0, 1.0, 0.5, 3}), c10::Error);
  EXPECT_THROW(GradScaler(GradScalerOptions{1.0, 2.0, 1.5, 3}), c10::Error);
}

}  // namespace
}  // namespace dls::train

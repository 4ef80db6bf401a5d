// clip_gradients equals LibTorch's clip_grad_norm_ (norm type 2) with either kernels: the same
// norm, the same clipped gradients, untouched ones below the limit, parameters without a
// gradient skipped.
#include "dls/train/optim/clip_gradients.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <torch/torch.h>

#include "dls/util/operator_count.h"

namespace dls::train::clip_gradients_test {
namespace {

// Parameters of several shapes with random gradients; the third has none.
std::vector<torch::Tensor> parameters_with_gradients(double scale) {
  std::vector<torch::Tensor> parameters;
  for (const auto& shape : std::vector<std::vector<std::int64_t>>{{7, 5}, {5}, {3, 4, 2}, {1}, {64, 33}}) {
    auto p = torch::randn(shape).requires_grad_(true);
    if (parameters.size() != 2) p.mutable_grad() = scale * torch::randn(shape);
    parameters.push_back(p);
  }
  return parameters;
}

std::vector<torch::Tensor> gradients_of(const std::vector<torch::Tensor>& parameters) {
  std::vector<torch::Tensor> copies;
  for (const auto& p : parameters) copies.push_back(p.grad().defined() ? p.grad().clone() : torch::Tensor());
  return copies;
}

class ClipGradients : public ::testing::TestWithParam<ClipKernels> {};

TEST_P(ClipGradients, EqualsClipGradNormAboveAndBelowTheLimit) {
  torch::manual_seed(3);
  for (const double scale : {10.0, 0.01}) {  // a norm far above max_norm 1, and one below
    const auto ours = parameters_with_gradients(scale);
    std::vector<torch::Tensor> theirs;
    for (const auto& p : ours) {
      auto copy = p.detach().clone().requires_grad_(true);
      if (p.grad().defined()) copy.mutable_grad() = p.grad().clone();
      theirs.push_back(copy);
    }
    const auto before = gradients_of(ours);
    const auto norm = clip_gradients(ours, 1.0, GetParam());
    const double expected = torch::nn::utils::clip_grad_norm_(theirs, 1.0);
    EXPECT_NEAR(norm.item<double>(), expected, 1e-6 * expected);
    for (std::size_t i = 0; i < ours.size(); ++i) {
      if (!ours[i].grad().defined()) {
        EXPECT_FALSE(theirs[i].grad().defined());
        continue;
      }
      EXPECT_TRUE(torch::allclose(ours[i].grad(), theirs[i].grad(), 1e-6, 0)) << "parameter " << i;
      if (scale < 1) {
        EXPECT_TRUE(torch::equal(ours[i].grad(), before[i])) << "below the limit nothing changes";
      }
    }
  }
  EXPECT_FALSE(clip_gradients({torch::zeros({2}, torch::requires_grad())}, 1.0, GetParam()).defined());
}

INSTANTIATE_TEST_SUITE_P(Kernels, ClipGradients, ::testing::Values(ClipKernels::kPerTensor, ClipKernels::kForeach),
                         [](const ::testing::TestParamInfo<ClipKernels>& info) {
                           return info.param == ClipKernels::kForeach ? std::string("foreach")
                                                                      : std::string("per_tensor");
                         });

// The multi-tensor kernels ask for a handful of operators for any number of parameters
// (clip_grad_norm_: two per parameter); on a GPU they are its kernels.
TEST(ClipGradientsForeach, AsksForTheSameOperatorsForAnyParameterCount) {
  const auto count_for = [](int copies) {
    std::vector<torch::Tensor> parameters;
    for (int i = 0; i < copies; ++i) {
      auto p = torch::randn({4, 3}).requires_grad_(true);
      p.mutable_grad() = torch::randn({4, 3});
      parameters.push_back(p);
    }
    return util::count_operators([&] { clip_gradients(parameters, 0.1, ClipKernels::kForeach); }).top_level_ops;
  };
  EXPECT_EQ(count_for(10), count_for(300));
  EXPECT_LE(count_for(300), 12);
}

}  // namespace
}  // namespace dls::train::clip_gradients_test

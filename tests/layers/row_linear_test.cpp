// row_linear: one row through GEMV gives linear's numbers (to float rounding) in every shape
// a decoding step passes, with and without bias, and its gradient; more rows, autocast or the
// switch turned off take torch's linear itself.
#include "dls/layers/row_linear.h"

#include <gtest/gtest.h>

#include <torch/torch.h>

namespace dls::row_linear_test {
namespace {

class RowLinear : public ::testing::Test {
 protected:
  void SetUp() override {
    torch::manual_seed(3);
    weight_ = torch::randn({37, 16});
    bias_ = torch::randn({37});
  }
  void TearDown() override { set_row_gemv_enabled(true); }
  torch::Tensor weight_, bias_;
};

TEST_F(RowLinear, OneRowInAnyShapeEqualsLinear) {
  for (const auto& shape : std::vector<std::vector<std::int64_t>>{{16}, {1, 16}, {1, 1, 16}, {1, 1, 1, 16}}) {
    const auto x = torch::randn(shape);
    const auto expected = torch::nn::functional::linear(x, weight_, bias_);
    const auto got = row_linear(x, weight_, bias_);
    EXPECT_EQ(got.sizes(), expected.sizes());
    EXPECT_TRUE(torch::allclose(got, expected, 1e-5, 1e-5));
    EXPECT_TRUE(torch::allclose(row_linear(x, weight_, {}), torch::nn::functional::linear(x, weight_), 1e-5, 1e-5));
  }
}

TEST_F(RowLinear, ANonContiguousRowEqualsLinear) {
  const auto rows = torch::randn({3, 1, 32});
  const auto x = rows.select(0, 1).narrow(1, 0, 32).slice(1, 0, 32, 2);  // [1, 16], stride 2
  ASSERT_FALSE(x.is_contiguous());
  EXPECT_TRUE(
      torch::allclose(row_linear(x, weight_, bias_), torch::nn::functional::linear(x, weight_, bias_), 1e-5, 1e-5));
}

TEST_F(RowLinear, GradientsOfOneRowEqualLinears) {
  const auto x = torch::randn({1, 1, 16});
  auto w1 = weight_.clone().requires_grad_(true), b1 = bias_.clone().requires_grad_(true);
  auto w2 = weight_.clone().requires_grad_(true), b2 = bias_.clone().requires_grad_(true);
  auto x1 = x.clone().requires_grad_(true), x2 = x.clone().requires_grad_(true);
  row_linear(x1, w1, b1).pow(2).sum().backward();
  torch::nn::functional::linear(x2, w2, b2).pow(2).sum().backward();
  EXPECT_TRUE(torch::allclose(w1.grad(), w2.grad(), 1e-4, 1e-5));
  EXPECT_TRUE(torch::allclose(b1.grad(), b2.grad(), 1e-4, 1e-5));
  EXPECT_TRUE(torch::allclose(x1.grad(), x2.grad(), 1e-4, 1e-5));
}

TEST_F(RowLinear, SeveralRowsAndTheSwitchOffAreLinearItself) {
  const auto rows = torch::randn({2, 3, 16});
  EXPECT_TRUE(torch::equal(row_linear(rows, weight_, bias_), torch::nn::functional::linear(rows, weight_, bias_)));
  set_row_gemv_enabled(false);
  const auto one = torch::randn({1, 1, 16});
  EXPECT_TRUE(torch::equal(row_linear(one, weight_, bias_), torch::nn::functional::linear(one, weight_, bias_)));
}

TEST_F(RowLinear, TheLayerOverloadReadsItsWeightAndBias) {
  torch::nn::Linear layer(16, 37);
  const auto x = torch::randn({1, 1, 16});
  EXPECT_TRUE(torch::allclose(row_linear(x, layer), layer(x), 1e-5, 1e-5));
}

}  // namespace
}  // namespace dls::row_linear_test

// int8 linear layers (--quantize int8): per-row quantization keeps each weight within half a
// step of its scale; the AVX2 one-row kernel equals the plain loop; one row follows the
// dequantized weight to float rounding and batches (onednn, rows quantized per call) to about
// a percent; row_linear takes the int8 path only when switched on, for inference on the CPU,
// and remakes a weight's int8 form when the weight changes.
#include "dls/layers/int8_linear.h"

#include <gtest/gtest.h>

#include <torch/torch.h>

#include "dls/layers/row_linear.h"

namespace dls::int8_linear_test {
namespace {

torch::Tensor dequantized(const Int8Weight& weight) {
  return weight.values.to(torch::kFloat) * weight.scales.unsqueeze(1);  // [out, in]
}

// Largest difference relative to the largest magnitude of `expected`.
double relative_error(const torch::Tensor& got, const torch::Tensor& expected) {
  return (got - expected).abs().max().item<double>() / expected.abs().max().item<double>();
}

TEST(Int8Weights, EachRowKeepsItsWeightsWithinHalfAStepOfItsScale) {
  torch::manual_seed(1);
  auto w = torch::randn({40, 24}) * torch::rand({40, 1}) * 3;
  w[7].zero_();
  const auto q = quantize_rows(w, /*pack=*/false);
  EXPECT_EQ(q.values.scalar_type(), torch::kChar);
  EXPECT_LE(q.values.abs().max().item<int>(), 127);
  EXPECT_FLOAT_EQ(q.scales[7].item<float>(), 1.0f);  // a row of zeros
  EXPECT_TRUE((q.values[7] == 0).all().item<bool>());
  const auto step = q.scales.unsqueeze(1);
  EXPECT_TRUE(((dequantized(q) - w).abs() <= step * 0.5 + 1e-6).all().item<bool>());
  // The largest weight of each row is exactly +-127 steps.
  EXPECT_TRUE((q.values.abs().amax(1).index({torch::arange(40) != 7}) == 127).all().item<bool>());
}

TEST(Int8Gemv, TheVectorisedKernelEqualsThePlainLoop) {
  torch::manual_seed(2);
  // 259 inputs: 16 at a time and a tail; 3000 outputs: split over the threads.
  const auto q = quantize_rows(torch::randn({3000, 259}), /*pack=*/false);
  const auto x = torch::randn({259}), bias = torch::randn({3000});
  auto fast = torch::empty({3000}), plain = torch::empty({3000});
  int8_gemv(q, x.data_ptr<float>(), bias.data_ptr<float>(), fast.data_ptr<float>(), /*vectorized=*/true);
  int8_gemv(q, x.data_ptr<float>(), bias.data_ptr<float>(), plain.data_ptr<float>(), /*vectorized=*/false);
  EXPECT_TRUE(torch::allclose(fast, plain, 1e-5, 1e-4)) << (fast - plain).abs().max().item<float>();
  int8_gemv(q, x.data_ptr<float>(), nullptr, plain.data_ptr<float>(), /*vectorized=*/false);
  EXPECT_TRUE(torch::allclose(fast - bias, plain, 1e-5, 1e-4));
  SCOPED_TRACE(int8_gemv_kernel());
}

TEST(Int8Linear, OneRowFollowsTheDequantizedWeightAndBatchesToAPercent) {
  if (!int8_engine_problem().empty()) GTEST_SKIP() << int8_engine_problem();
  torch::manual_seed(3);
  const auto w = torch::randn({300, 64}) * 0.1, bias = torch::randn({300});
  const auto q = quantize_rows(w);
  const auto reference = [&](const torch::Tensor& x) { return torch::nn::functional::linear(x, dequantized(q), bias); };
  const auto one = torch::randn({1, 1, 64});
  const auto y = int8_linear(one, q, bias);
  EXPECT_EQ(y.sizes(), (std::vector<std::int64_t>{1, 1, 300}));
  EXPECT_TRUE(torch::allclose(y, reference(one), 1e-4, 1e-4));
  const auto batch = torch::randn({4, 32, 64});
  const auto yb = int8_linear(batch, q, bias);
  EXPECT_EQ(yb.sizes(), (std::vector<std::int64_t>{4, 32, 300}));
  EXPECT_LT(relative_error(yb, reference(batch)), 0.02);
  // ... and both within a few percent of the fp32 layer itself.
  EXPECT_LT(relative_error(yb, torch::nn::functional::linear(batch, w, bias)), 0.03);
  EXPECT_EQ(int8_linear(torch::randn({0, 64}), q, bias).sizes(), (std::vector<std::int64_t>{0, 300}));
}

class Int8RowLinear : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!int8_engine_problem().empty()) GTEST_SKIP() << int8_engine_problem();
    set_int8_linear_enabled(true);
  }
  void TearDown() override { set_int8_linear_enabled(false); }
};

TEST_F(Int8RowLinear, InferenceOnTheCpuRunsOnTheWeightsInt8Form) {
  torch::manual_seed(4);
  const auto w = torch::randn({50, 32}), bias = torch::randn({50}), x = torch::randn({1, 32});
  torch::NoGradGuard no_grad;
  const auto q = int8_weight_of(w);
  EXPECT_EQ(int8_weight_of(w), q);  // made once
  EXPECT_TRUE(torch::allclose(row_linear(x, w, bias), int8_linear(x, *q, bias), 1e-6, 1e-6));
  // A view made anew over the same storage (the stacked heads' weights each step) is the same weight.
  EXPECT_EQ(int8_weight_of(w.view({50, 32})), q);
  // Changed in place: a new int8 form.
  w.mul_(2);
  const auto changed = int8_weight_of(w);
  EXPECT_NE(changed, q);
  EXPECT_TRUE(torch::allclose(changed->scales, q->scales * 2));
}

TEST_F(Int8RowLinear, TrainingAndTheSwitchOffStayOnTheFp32Weights) {
  torch::manual_seed(5);
  const auto w = torch::randn({50, 32}), bias = torch::randn({50}), x = torch::randn({3, 32});
  // Gradients wanted: the fp32 layer (training never sees int8).
  EXPECT_TRUE(torch::equal(row_linear(x, w, bias), torch::nn::functional::linear(x, w, bias)));
  torch::NoGradGuard no_grad;
  EXPECT_FALSE(torch::equal(row_linear(x, w, bias), torch::nn::functional::linear(x, w, bias)));
  set_int8_linear_enabled(false);
  EXPECT_TRUE(torch::equal(row_linear(x, w, bias), torch::nn::functional::linear(x, w, bias)));
}

}  // namespace
}  // namespace dls::int8_linear_test

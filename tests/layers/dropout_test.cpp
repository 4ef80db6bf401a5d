// layers/dropout.h: the CPU's dropout masks drawn in parallel from Philox -- the kept fraction
// and scale of torch::dropout, masks fresh each call and without pattern along a tensor, the
// same mask however the work is split and from the same seed, backward through the forward's
// mask, and torch::dropout itself where the fast path does not apply.
#include "dls/layers/dropout.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <sstream>
#include <vector>

#include <ATen/core/PhiloxRNGEngine.h>
#include <torch/torch.h>

namespace dls {
namespace {

// Nowhere zero, so that a zero of the output is a dropped element.
torch::Tensor nonzero_input(std::int64_t n, torch::Dtype dtype = torch::kFloat32) {
  return (torch::rand({n}, torch::kFloat64) + 0.5).to(dtype);
}

// keep [n] as 0/1 doubles from an output and its nonzero input.
torch::Tensor kept(const torch::Tensor& y) { return (y != 0).to(torch::kFloat64); }

TEST(Dropout, KeepsOneMinusPOfTheElementsScaledAsTorchDropout) {
  torch::manual_seed(11);
  const std::int64_t n = 1 << 20;
  const auto x = nonzero_input(n);
  for (const double p : {0.1, 0.5, 0.9}) {
    const auto y = dls::dropout(x, p, /*training=*/true);
    const double fraction = kept(y).mean().item<double>();
    const double sigma = std::sqrt(p * (1 - p) / n);
    EXPECT_NEAR(fraction, 1 - p, 5 * sigma) << "p " << p;
    // The kept values: x times torch::dropout's own scale (its kept value of a one), bit for bit.
    const auto scale = torch::dropout(torch::ones({64}), p, /*train=*/true).max();
    EXPECT_TRUE(torch::equal(y.masked_select(y != 0), (x * scale).masked_select(y != 0))) << "p " << p;
  }
}

TEST(Dropout, MasksAreFreshEachCallAndWithoutPatternAlongTheTensor) {
  torch::manual_seed(12);
  const std::int64_t n = 1 << 18;
  const double p = 0.3;
  const auto x = nonzero_input(n);
  const auto first = kept(dls::dropout(x, p, true)), second = kept(dls::dropout(x, p, true));
  const double same = (first == second).to(torch::kFloat64).mean().item<double>();
  const double expected = (1 - p) * (1 - p) + p * p;  // two independent masks agree this often
  EXPECT_NEAR(same, expected, 5 * std::sqrt(expected * (1 - expected) / n));
  // Correlation of element i with element i + lag: within a Philox block (lags 1-3), across
  // blocks (4-9) and far (4096).
  const auto centred = first - first.mean();
  const double variance = (centred * centred).mean().item<double>();
  for (const std::int64_t lag : {1, 2, 3, 4, 5, 8, 9, 4096}) {
    const double r = (centred.narrow(0, 0, n - lag) * centred.narrow(0, lag, n - lag)).mean().item<double>() / variance;
    EXPECT_LT(std::abs(r), 5.0 / std::sqrt(static_cast<double>(n))) << "lag " << lag;
  }
}

TEST(Dropout, TheSeedGivesTheMaskWhateverTheSplit) {
  const std::int64_t n = 100003;  // several parallel tasks, the last one short
  const double p = 0.25;
  const std::uint64_t seed = 0x5eed5eed12345ULL;
  std::vector<std::uint8_t> whole(n), pieces(n);
  fill_keep_decisions(whole.data(), 0, n, p, seed);
  // Bounds inside Philox blocks of four words and across them.
  const std::vector<std::int64_t> bounds{0, 1, 5, 6, 13, 4099, 77777, n};
  for (std::size_t j = 0; j + 1 < bounds.size(); ++j) {
    fill_keep_decisions(pieces.data() + bounds[j], bounds[j], bounds[j + 1], p, seed);
  }
  EXPECT_EQ(whole, pieces);
  // The stream is ATen's Philox engine's, word for word.
  at::philox_engine engine(seed, 0, 0);
  const auto threshold = static_cast<std::uint32_t>(std::ceil(p * 4294967296.0));
  for (std::int64_t i = 0; i < 4099; ++i) ASSERT_EQ(whole[i], engine() >= threshold ? 1 : 0) << "element " << i;
  // dropout_mask (split over the threads at::parallel_for chose) is the same stream.
  const auto mask = dropout_mask(torch::empty({n}), p, seed);
  const auto reference = torch::from_blob(whole.data(), {n}, torch::kUInt8).to(torch::kFloat32) / (1 - p);
  EXPECT_TRUE(torch::equal(mask, reference.to(torch::kFloat32)));
  EXPECT_FALSE(torch::equal(dropout_mask(torch::empty({n}), p, seed + 1), mask));
  // One draw of the default generator per call: a seed repeats the masks.
  const auto x = nonzero_input(n);
  torch::manual_seed(3);
  const auto a = dls::dropout(x, p, true);
  torch::manual_seed(3);
  const auto b = dls::dropout(x, p, true);
  EXPECT_TRUE(torch::equal(a, b));
}

TEST(Dropout, BackwardGoesThroughTheForwardsMask) {
  torch::manual_seed(13);
  const auto x = nonzero_input(5000).requires_grad_();
  const double p = 0.4;
  const auto y = dls::dropout(x, p, true);
  const auto upstream = torch::randn({5000});
  y.backward(upstream);
  const auto mask = kept(y).to(torch::kFloat32) * torch::dropout(torch::ones({64}), p, true).max();
  EXPECT_TRUE(torch::equal(x.grad(), upstream * mask));
}

TEST(Dropout, EvaluationTheEndsAndOtherTypesAreAsTorchDropout) {
  torch::manual_seed(14);
  const auto x = nonzero_input(4096);
  Dropout module(0.2);
  module->eval();
  EXPECT_TRUE(torch::equal(module(x), x));
  module->train();
  EXPECT_EQ(kept(module(x)).sum().item<double>() < 4096, true);
  EXPECT_TRUE(torch::equal(dls::dropout(x, 0.0, true), x));
  EXPECT_TRUE(torch::equal(dls::dropout(x, 1.0, true), torch::zeros_like(x)));
  for (const auto dtype : {torch::kBFloat16, torch::kFloat64}) {
    const auto xt = nonzero_input(4096, dtype);
    const auto y = dls::dropout(xt, 0.5, true);
    EXPECT_EQ(y.scalar_type(), dtype);
    const auto scale = torch::dropout(torch::ones({64}, torch::TensorOptions(dtype)), 0.5, true).max();
    EXPECT_TRUE(torch::equal(y.masked_select(y != 0), (xt * scale).masked_select(y != 0)));
  }
  // Not a tensor of its own, and printed as torch's module (DLStudio's printout).
  EXPECT_TRUE(module->named_parameters().is_empty());
  EXPECT_TRUE(module->named_buffers().is_empty());
  std::ostringstream ours, theirs;
  ours << *module;
  theirs << *torch::nn::Dropout(0.2);
  EXPECT_EQ(ours.str(), theirs.str());
  EXPECT_THROW(Dropout(1.5), c10::Error);
}

}  // namespace
}  // namespace dls

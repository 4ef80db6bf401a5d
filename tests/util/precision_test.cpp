// --precision: names, the device check, and autocast scopes (nesting, threads, the fp32-only
// small_batched_matmul kernels standing aside).
#include <gtest/gtest.h>

#include <stdexcept>

#include <torch/torch.h>

#include "dls/layers/small_batched_matmul.h"
#include "dls/util/parallel_chunks.h"
#include "dls/util/precision.h"

namespace dls::util {
namespace {

const c10::Device kPrecisionCpu(c10::kCPU);

TEST(Precision, NamesRoundTripAndUnknownIsRefused) {
  for (const char* name : {"fp32", "bf16", "fp16"}) EXPECT_EQ(precision_name(parse_precision(name)), name);
  EXPECT_THROW(parse_precision("fp64"), std::invalid_argument);
  EXPECT_THROW(parse_precision("BF16"), std::invalid_argument);
}

TEST(Precision, Fp16NeedsCuda) {
  try {
    check_precision(Precision::kFp16, kPrecisionCpu);
    FAIL() << "fp16 on the CPU was accepted";
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find("fp16 needs --device cuda"), std::string::npos) << error.what();
  }
  EXPECT_NO_THROW(check_precision(Precision::kBf16, kPrecisionCpu));  // at worst a warning
  EXPECT_NO_THROW(check_precision(Precision::kFp32, kPrecisionCpu));
}

TEST(Precision, ScopeLowersMatmulsAndRestoresOnExit) {
  const auto a = torch::randn({4, 8}), b = torch::randn({8, 3});
  EXPECT_FALSE(autocast_active(kPrecisionCpu));
  {
    const AutocastScope outer(autocast_for(Precision::kBf16, kPrecisionCpu));
    EXPECT_TRUE(autocast_active(kPrecisionCpu));
    EXPECT_EQ(torch::matmul(a, b).scalar_type(), torch::kBFloat16);
    EXPECT_EQ((a + a).scalar_type(), torch::kFloat);  // elementwise ops keep their inputs' type
    {
      const AutocastScope inner(autocast_for(Precision::kFp32, kPrecisionCpu));
      EXPECT_FALSE(autocast_active(kPrecisionCpu));
      EXPECT_EQ(torch::matmul(a, b).scalar_type(), torch::kFloat);
    }
    EXPECT_TRUE(autocast_active(kPrecisionCpu));
  }
  EXPECT_FALSE(autocast_active(kPrecisionCpu));
  EXPECT_EQ(torch::matmul(a, b).scalar_type(), torch::kFloat);
}

// The type the custom autograd functions (the fused heads' projections, the dlstudio FFN's
// column blocks) cast to: each device's own autocast type. Autocast's state is per thread and
// needs no GPU, so the CUDA branch a GPU run takes (bf16 or fp16) is pinned here too.
TEST(Precision, AutocastDtypeIsTheDevicesOwnType) {
  const c10::Device cuda(c10::kCUDA, 0);
  {
    const AutocastScope scope(autocast_for(Precision::kFp16, cuda));
    EXPECT_TRUE(autocast_active(cuda));
    EXPECT_FALSE(autocast_active(kPrecisionCpu));
    EXPECT_EQ(autocast_dtype(cuda), c10::kHalf);
  }
  {
    const AutocastScope scope(autocast_for(Precision::kBf16, cuda));
    EXPECT_EQ(autocast_dtype(cuda), c10::kBFloat16);
  }
  const AutocastScope scope(autocast_for(Precision::kBf16, kPrecisionCpu));
  EXPECT_TRUE(autocast_active(kPrecisionCpu));
  EXPECT_FALSE(autocast_active(cuda));
  EXPECT_EQ(autocast_dtype(kPrecisionCpu), c10::kBFloat16);
}

TEST(Precision, InAutocastTypeCastsOnlyWhereAutocastIsActive) {
  const auto t = torch::randn({2, 3}, torch::requires_grad());
  EXPECT_TRUE(in_autocast_type(t).is_same(t));  // fp32: the tensor itself, no copy
  {
    const AutocastScope scope(autocast_for(Precision::kBf16, c10::Device(c10::kCUDA, 0)));
    EXPECT_TRUE(in_autocast_type(t).is_same(t));  // autocast on another device
  }
  const AutocastScope scope(autocast_for(Precision::kBf16, kPrecisionCpu));
  const auto cast = in_autocast_type(t);
  EXPECT_EQ(cast.scalar_type(), torch::kBFloat16);
  EXPECT_TRUE(torch::equal(cast, t.detach().to(torch::kBFloat16)));
  cast.sum().backward();  // the cast's backward returns the gradient in t's own type
  EXPECT_EQ(t.grad().scalar_type(), torch::kFloat);
}

TEST(Precision, ChunkThreadsRunInTheCallersPrecision) {
  const auto a = torch::randn({4, 8}), b = torch::randn({8, 3});
  std::vector<c10::ScalarType> types(2, torch::kDouble);
  {
    const AutocastScope scope(autocast_for(Precision::kBf16, kPrecisionCpu));
    for_each_chunk(2, 2, [&](int chunk, std::int64_t, std::int64_t) {
      types[static_cast<std::size_t>(chunk)] = torch::matmul(a, b).scalar_type();
    });
  }
  EXPECT_EQ(types[0], torch::kBFloat16);
  EXPECT_EQ(types[1], torch::kBFloat16);
  for_each_chunk(2, 2, [&](int chunk, std::int64_t, std::int64_t) {
    types[static_cast<std::size_t>(chunk)] = torch::matmul(a, b).scalar_type();
  });
  EXPECT_EQ(types[0], torch::kFloat);
  EXPECT_EQ(types[1], torch::kFloat);
}

// The float32 kernels of small_batched_matmul stand aside under autocast, so that attention's
// products are bf16 like every other product, and its gradients reach fp32 weights as fp32.
TEST(Precision, SmallBatchedMatmulFallsBackUnderAutocast) {
  const auto a = torch::randn({8, 17, 32}), b = torch::randn({8, 32, 17});
  const auto expected = torch::bmm(a, b);  // fp32, before autocast (inside it bmm runs in bf16 too)
  const bool fast_in_fp32 = small_batched_matmul_applies(a, b);  // the shape qualifies or not; autocast decides below
  const AutocastScope scope(autocast_for(Precision::kBf16, kPrecisionCpu));
  EXPECT_FALSE(small_batched_matmul_applies(a, b)) << "in fp32: " << fast_in_fp32;
  const auto product = small_batched_matmul(a, b);
  EXPECT_EQ(product.scalar_type(), torch::kBFloat16);
  EXPECT_TRUE(torch::allclose(product.to(torch::kFloat), expected, 3e-2, 0.3));
}

}  // namespace
}  // namespace dls::util

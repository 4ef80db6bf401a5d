#include "dls/layers/small_batched_matmul.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <functional>

#include <ATen/record_function.h>

#include <torch/torch.h>

#include "dls/layers/attention.h"
#include "dls/layers/feed_forward.h"

namespace dls {
namespace {

// Turns the fast kernels off for one scope (the plain torch::matmul reference).
struct PlainMatmul {
  PlainMatmul() { set_small_batched_matmul_enabled(false); }
  ~PlainMatmul() { set_small_batched_matmul_enabled(true); }
};

// The product and both gradients by small_batched_matmul and by torch::matmul, for the
// same operands and the same upstream gradient.
void expect_equal_to_matmul(const torch::Tensor& a0, const torch::Tensor& b0) {
  ASSERT_TRUE(small_batched_matmul_applies(a0, b0)) << a0.sizes() << " x " << b0.sizes();
  auto a = a0.detach().requires_grad_(), b = b0.detach().requires_grad_();
  auto a_ref = a0.detach().requires_grad_(), b_ref = b0.detach().requires_grad_();
  const auto fast = small_batched_matmul(a, b);
  const auto plain = torch::matmul(a_ref, b_ref);
  ASSERT_EQ(fast.sizes(), plain.sizes());
  EXPECT_TRUE(torch::allclose(fast, plain, 1e-5, 1e-5)) << (fast - plain).abs().max();
  const auto upstream = torch::randn(plain.sizes());
  (fast * upstream).sum().backward();
  (plain * upstream).sum().backward();
  EXPECT_TRUE(torch::allclose(a.grad(), a_ref.grad(), 1e-5, 1e-5)) << (a.grad() - a_ref.grad()).abs().max();
  EXPECT_TRUE(torch::allclose(b.grad(), b_ref.grad(), 1e-5, 1e-5)) << (b.grad() - b_ref.grad()).abs().max();
}

TEST(SmallBatchedMatmul, EqualsMatmulWithContiguousOperands) {
  torch::manual_seed(1);
  expect_equal_to_matmul(torch::randn({2, 4, 17, 17}), torch::randn({2, 4, 17, 32}));  // P V
  expect_equal_to_matmul(torch::randn({5, 3, 7}), torch::randn({5, 7, 37}));           // a remainder of 5
  expect_equal_to_matmul(torch::randn({5, 1, 7}), torch::randn({5, 7, 9}));            // one row
}

TEST(SmallBatchedMatmul, EqualsMatmulForQueriesTimesTransposedKeys) {
  // Q K^T with K's rows contiguous: the dot-product kernel, k = 32 (whole groups of 8) and
  // k = 45 (a remainder).
  torch::manual_seed(2);
  for (const std::int64_t s : {32, 45}) {
    const auto q = torch::randn({2, 4, 17, s});
    const auto k = torch::randn({2, 4, 17, s});
    expect_equal_to_matmul(q, k.transpose(-2, -1));
  }
}

TEST(SmallBatchedMatmul, EqualsMatmulForPermutedViews) {
  // Heads split off a [B, L, H, s] projection: batch dimensions that no single stride spans.
  torch::manual_seed(3);
  const auto projected = torch::randn({3, 10, 4, 32});
  const auto q = projected.permute({0, 2, 1, 3});  // [B, H, L, s]
  const auto v = torch::randn({3, 10, 4, 32}).permute({0, 2, 1, 3});
  expect_equal_to_matmul(q, v.transpose(-2, -1));
  expect_equal_to_matmul(torch::randn({3, 4, 10, 10}), v);
  expect_equal_to_matmul(torch::randn({3, 4, 10, 10}).transpose(-2, -1), v);  // P^T, as in P V's backward
}

TEST(SmallBatchedMatmul, EqualsMatmulForDecodingShapesAndEdges) {
  torch::manual_seed(4);
  expect_equal_to_matmul(torch::randn({6, 4, 1, 64}), torch::randn({6, 4, 9, 64}).transpose(-2, -1));  // one query
  expect_equal_to_matmul(torch::randn({6, 4, 1, 9}), torch::randn({6, 4, 9, 64}));                     // its output
  expect_equal_to_matmul(torch::randn({6, 4, 1, 1}), torch::randn({6, 4, 1, 64}));                     // the first step
  expect_equal_to_matmul(torch::randn({3, 1, 6}), torch::randn({3, 6, 1}));                            // n = 1
  // An expanded (stride 0) operand, as sum()'s gradient arrives.
  expect_equal_to_matmul(torch::randn({1, 5, 6}).expand({4, 5, 6}), torch::randn({4, 6, 32}));
  // Empty batch and k = 0.
  const auto empty = small_batched_matmul(torch::randn({0, 3, 4}), torch::randn({0, 4, 5}));
  EXPECT_EQ(empty.sizes(), torch::IntArrayRef({0, 3, 5}));
  const auto zero_k = small_batched_matmul(torch::randn({2, 3, 0}), torch::randn({2, 0, 5}));
  EXPECT_TRUE(torch::equal(zero_k, torch::zeros({2, 3, 5})));
}

TEST(SmallBatchedMatmul, EqualsMatmulThroughTheTransposedProduct) {
  // Q^T dC in the backward of Q K^T: [s, L] x [L, L], rows of 17 here; computed as
  // (dC^T Q)^T, whose rows have s = 32 entries.
  torch::manual_seed(6);
  const auto q = torch::randn({3, 4, 17, 32});
  const auto grad = torch::randn({3, 4, 17, 17});
  const auto a = q.transpose(-2, -1), b = grad;
  EXPECT_TRUE(small_batched_matmul_applies(b.transpose(-2, -1), a.transpose(-2, -1)));
  expect_equal_to_matmul(a, b);
}

TEST(SmallBatchedMatmul, EqualsMatmulOnSeveralThreads) {
  torch::manual_seed(5);
  const int threads = torch::get_num_threads();
  torch::set_num_threads(2);
  expect_equal_to_matmul(torch::randn({128, 4, 17, 32}), torch::randn({128, 4, 17, 32}).transpose(-2, -1));
  torch::set_num_threads(threads);
}

TEST(SmallBatchedMatmul, OnlyOnTheCpu) {
  // torch::Device values only: no GPU is needed to pin that the kernels stay off on CUDA.
  EXPECT_TRUE(small_batched_matmul_on(torch::Device(torch::kCPU)));
  EXPECT_FALSE(small_batched_matmul_on(torch::Device(torch::kCUDA, 0)));
  EXPECT_FALSE(small_batched_matmul_on(torch::Device(torch::kCUDA, 1)));
  EXPECT_FALSE(small_batched_matmul_on(torch::Device(torch::kMeta)));
  // Operands on another device (meta tensors have shapes and no data) go to torch::matmul.
  const auto meta = torch::TensorOptions().device(torch::kMeta);
  EXPECT_TRUE(small_batched_matmul_applies(torch::randn({2, 1, 64}), torch::randn({2, 64, 7})));
  EXPECT_FALSE(small_batched_matmul_applies(torch::empty({2, 1, 64}, meta), torch::empty({2, 64, 7}, meta)));
  {
    PlainMatmul plain;
    EXPECT_FALSE(small_batched_matmul_on(torch::Device(torch::kCPU)));
  }
}

TEST(SmallBatchedMatmul, LeavesOtherProductsToMatmul) {
  const auto a = torch::randn({2, 1, 4}), b = torch::randn({2, 4, 5});  // applies (one row)
  EXPECT_FALSE(small_batched_matmul_applies(a.to(torch::kDouble), b.to(torch::kDouble)));
  EXPECT_FALSE(small_batched_matmul_applies(a, torch::randn({1, 4, 5})));  // broadcast batch
  EXPECT_FALSE(small_batched_matmul_applies(a[0], b[0]));                  // no batch dimension
  EXPECT_FALSE(small_batched_matmul_applies(torch::randn({2, 17, 64}), torch::randn({2, 64, 32})));  // too big
  EXPECT_TRUE(small_batched_matmul_applies(torch::randn({2, 17, 64}), torch::randn({2, 17, 64}).transpose(-2, -1)));
  // Short vector loops, where BLAS wins: 17 columns of b's rows, or dot products of 17,
  // with a transpose no better.
  EXPECT_FALSE(small_batched_matmul_applies(torch::randn({2, 17, 32}), torch::randn({2, 32, 17})));
  EXPECT_FALSE(small_batched_matmul_applies(torch::randn({2, 17, 17}), torch::randn({2, 32, 17}).transpose(-2, -1)));
  // ... except for a single row (one decoding step).
  EXPECT_TRUE(small_batched_matmul_applies(torch::randn({2, 1, 64}), torch::randn({2, 64, 7})));
  // Neither layout without a copy.
  EXPECT_FALSE(small_batched_matmul_applies(torch::randn({2, 40, 8}).transpose(-2, -1),
                                            torch::randn({2, 40, 40}).transpose(-2, -1)));
  // Where it does not apply the result is torch::matmul's own, bit for bit.
  const auto big_a = torch::randn({2, 40, 40}), big_b = torch::randn({2, 40, 40});
  EXPECT_TRUE(torch::equal(small_batched_matmul(big_a, big_b), torch::matmul(big_a, big_b)));
  {
    PlainMatmul plain;
    EXPECT_FALSE(small_batched_matmul_applies(a, b));
    EXPECT_TRUE(torch::equal(small_batched_matmul(a, b), torch::matmul(a, b)));
  }
  EXPECT_TRUE(small_batched_matmul_applies(a, b));
}

// How many products small_batched_matmul's kernels computed while fn ran.
std::atomic<int> g_kernel_calls{0};
int kernel_calls(const std::function<void()>& fn) {
  g_kernel_calls = 0;
  const auto handle = at::addGlobalCallback(
      at::RecordFunctionCallback([](const at::RecordFunction& f) -> std::unique_ptr<at::ObserverContext> {
        if (std::strcmp(f.name(), "dls::small_batched_matmul") == 0) ++g_kernel_calls;
        return nullptr;
      }));
  fn();
  at::removeCallback(handle);
  return g_kernel_calls.load();
}

class SmallMatmulInAttention : public ::testing::TestWithParam<Layout> {};

TEST_P(SmallMatmulInAttention, SelfAttentionOutputAndGradientsEqualThePlainProducts) {
  TransformerConfig config;
  // s = 32: Q K^T's dot products and P V's rows are long enough for the kernels.
  config.layout(GetParam()).embedding_size(128).num_heads(4).max_seq_length(7);
  torch::manual_seed(6);
  SelfAttention attention(config);
  const auto x = torch::randn({5, 7, 128});
  const auto mask = causal_mask(7, x.options());
  auto run = [&] {
    attention->zero_grad();
    const auto y = attention(x, mask);
    (y * torch::linspace(-1, 1, y.numel()).view(y.sizes())).sum().backward();
    std::vector<torch::Tensor> grads;
    grads.push_back(y.detach());
    for (const auto& p : attention->parameters()) grads.push_back(p.grad().clone());
    return grads;
  };
  std::vector<torch::Tensor> fast;
  EXPECT_GE(kernel_calls([&] { fast = run(); }), 4);  // Q K^T and P V, forward and backward
  std::vector<torch::Tensor> plain;
  {
    PlainMatmul off;
    EXPECT_EQ(kernel_calls([&] { plain = run(); }), 0);
  }
  ASSERT_EQ(fast.size(), plain.size());
  for (std::size_t i = 0; i < fast.size(); ++i) {
    EXPECT_TRUE(torch::allclose(fast[i], plain[i], 1e-4, 1e-5)) << i << ": " << (fast[i] - plain[i]).abs().max();
  }
}

INSTANTIATE_TEST_SUITE_P(Layouts, SmallMatmulInAttention,
                         ::testing::Values(Layout::kDLStudio, Layout::kPositionwise, Layout::kVaswani),
                         [](const auto& info) { return to_string(info.param); });

}  // namespace
}  // namespace dls

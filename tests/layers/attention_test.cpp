#include "dls/layers/attention.h"

#include <gtest/gtest.h>

#include <torch/torch.h>

#include "dls/layers/feed_forward.h"

namespace dls {
namespace {

TransformerConfig config_for(Layout layout) {
  TransformerConfig config;
  config.layout(layout).embedding_size(16).num_heads(4).max_seq_length(6);
  return config;
}

class AttentionLayouts : public ::testing::TestWithParam<Layout> {
 protected:
  void SetUp() override { torch::manual_seed(7); }
};

TEST_P(AttentionLayouts, HeadParametersFollowDLStudio) {
  const auto config = config_for(GetParam());
  SelfAttention attention(config);
  const auto parameters = attention->named_parameters();
  // H heads x (WQ, WK, WV) x (weight, bias), plus W_O's two in the vaswani layout.
  EXPECT_EQ(parameters.size(), GetParam() == Layout::kVaswani ? 26u : 24u);
  const auto& wq = parameters["attention_heads_arr.3.WQ.weight"];
  if (GetParam() == Layout::kDLStudio) {
    EXPECT_EQ(wq.sizes(), torch::IntArrayRef({6 * 4, 6 * 4}));  // Linear(L*s, L*s)
  } else if (GetParam() == Layout::kPositionwise) {
    EXPECT_EQ(wq.sizes(), torch::IntArrayRef({4, 4}));  // Linear(s, s)
  } else {
    EXPECT_EQ(wq.sizes(), torch::IntArrayRef({4, 16}));  // Linear(M, s)
    EXPECT_TRUE(parameters.contains("W_O.weight"));
  }
}

TEST_P(AttentionLayouts, BatchedHeadsEqualPerHeadComputation) {
  const auto config = config_for(GetParam());
  SelfAttention attention(config);
  const auto x = torch::randn({3, 6, 16});
  torch::Tensor mask;
  if (GetParam() == Layout::kVaswani) {
    mask = key_padding_mask(torch::tensor({{0, 0, 0, 0, 1, 1}, {0, 0, 0, 0, 0, 0}, {0, 0, 1, 1, 1, 1}})
                                .to(torch::kBool));
  }
  torch::Tensor fast_w, slow_w;
  const auto fast = attention(x, mask, &fast_w);
  const auto slow = attention->forward_per_head(x, mask, &slow_w);
  EXPECT_EQ(fast.sizes(), x.sizes());  // output shape = input shape
  EXPECT_TRUE(torch::allclose(fast, slow, 1e-5, 1e-6)) << (fast - slow).abs().max();
  EXPECT_EQ(fast_w.sizes(), torch::IntArrayRef({3, 4, 6, 6}));
  EXPECT_TRUE(torch::allclose(fast_w, slow_w, 1e-5, 1e-6));
  // Attention weights are distributions over the keys.
  EXPECT_TRUE(torch::allclose(fast_w.sum(-1), torch::ones({3, 4, 6}), 1e-5, 1e-5));
}

TEST_P(AttentionLayouts, BatchedCrossAttentionEqualsPerHeadWithCopies) {
  const auto config = config_for(GetParam());
  CrossAttention attention(config);
  const auto encoder_out = torch::randn({2, 6, 16});
  const auto x = torch::randn({3 * 2, 6, 16});  // three copy-major copies of a batch of two
  torch::Tensor mask;
  if (GetParam() == Layout::kVaswani) {
    mask = key_padding_mask(torch::tensor({{0, 0, 0, 1, 1, 1}, {0, 0, 0, 0, 0, 1}}).to(torch::kBool));
  }
  torch::Tensor fast_w, slow_w;
  const auto fast = attention(x, encoder_out, mask, &fast_w);
  const auto slow = attention->forward_per_head(x, encoder_out, mask, &slow_w);
  EXPECT_EQ(fast.sizes(), x.sizes());
  EXPECT_TRUE(torch::allclose(fast, slow, 1e-5, 1e-6)) << (fast - slow).abs().max();
  EXPECT_TRUE(torch::allclose(fast_w, slow_w, 1e-5, 1e-6));
  if (GetParam() == Layout::kVaswani) {
    // Padded source positions get no attention at all.
    EXPECT_EQ(fast_w.select(0, 0).narrow(-1, 3, 3).abs().max().item<float>(), 0.0f);
    EXPECT_EQ(fast_w.select(0, 4 + 1).narrow(-1, 5, 1).abs().max().item<float>(), 0.0f);
  }
}

TEST_P(AttentionLayouts, GradientsReachEveryHead) {
  const auto config = config_for(GetParam());
  SelfAttention attention(config);
  attention(torch::randn({2, 6, 16})).pow(2).sum().backward();
  for (const auto& p : attention->named_parameters()) {
    ASSERT_TRUE(p.value().grad().defined()) << p.key();
    EXPECT_GT(p.value().grad().abs().sum().item<float>(), 0.0f) << p.key();
  }
}

INSTANTIATE_TEST_SUITE_P(Layouts, AttentionLayouts,
                         ::testing::Values(Layout::kDLStudio, Layout::kPositionwise,
                                           Layout::kVaswani),
                         [](const auto& info) { return to_string(info.param); });

TEST(Attention, DLStudioScalesAfterTheSoftmax) {
  // One head, hand-set projections: Z = softmax(QK^T) V / sqrt(s).
  auto config = config_for(Layout::kDLStudio);
  config.num_heads(1).embedding_size(4).max_seq_length(3);
  AttentionHead head(config);
  torch::NoGradGuard no_grad;
  for (auto* linear : {&head->WQ, &head->WK, &head->WV}) {
    (*linear)->weight.copy_(torch::eye(12));
    (*linear)->bias.zero_();
  }
  const auto x = torch::randn({1, 3, 4});
  const auto expected = torch::matmul(torch::softmax(torch::matmul(x, x.transpose(1, 2)), -1), x) / 2.0;
  EXPECT_TRUE(torch::allclose(head(x), expected, 1e-5, 1e-6));
}

TEST(Attention, VaswaniScalesBeforeTheSoftmax) {
  auto config = config_for(Layout::kVaswani);
  config.num_heads(1).embedding_size(4).max_seq_length(3);
  AttentionHead head(config);
  torch::NoGradGuard no_grad;
  for (auto* linear : {&head->WQ, &head->WK, &head->WV}) {
    (*linear)->weight.copy_(torch::eye(4));
    (*linear)->bias.zero_();
  }
  const auto x = torch::randn({1, 3, 4});
  const auto expected = torch::matmul(torch::softmax(torch::matmul(x, x.transpose(1, 2)) / 2.0, -1), x);
  EXPECT_TRUE(torch::allclose(head(x), expected, 1e-5, 1e-6));
}

TEST(Attention, CachedStepsEqualTheCausalPass) {
  auto config = config_for(Layout::kVaswani);
  SelfAttention attention(config);
  attention->eval();
  torch::NoGradGuard no_grad;
  const auto x = torch::randn({2, 5, 16});
  const auto full = attention(x, causal_mask(5, x.options()));
  KeyValueCache cache;
  std::vector<torch::Tensor> steps;
  // Two positions at once, then one at a time.
  steps.push_back(attention->forward_cached(x.narrow(1, 0, 2), cache, 6));
  for (std::int64_t t = 2; t < 5; ++t) {
    steps.push_back(attention->forward_cached(x.narrow(1, t, 1), cache, 6));
  }
  EXPECT_EQ(cache.length, 5);
  EXPECT_TRUE(torch::allclose(torch::cat(steps, 1), full, 1e-5, 1e-6));
  EXPECT_THROW(attention->forward_cached(x.narrow(1, 0, 2), cache, 6), c10::Error);
}

}  // namespace
}  // namespace dls

// The score functions of the attention notes against hand computations on small tensors,
// and the distribution over source positions (padding gets none).
#include "dls/layers/rnn_attention.h"

#include <gtest/gtest.h>

#include <cmath>

#include <torch/torch.h>

namespace dls::rnn_attention_test {
namespace {

// One query [1, 2] = (1, 2) and three keys [1, 3, 2]: (1, 0), (0, 1), (1, 1).
const torch::Tensor kQuery = torch::tensor({{1.0f, 2.0f}});
const torch::Tensor kKeys = torch::tensor({1.0f, 0.0f, 0.0f, 1.0f, 1.0f, 1.0f}).view({1, 3, 2});

void expect_scores(const torch::Tensor& scores, const std::vector<double>& expected) {
  ASSERT_EQ(scores.sizes(), (std::vector<std::int64_t>{1, 3}));
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_NEAR(scores[0][static_cast<std::int64_t>(i)].item<double>(), expected[i], 1e-6) << "key " << i;
  }
}

TEST(RnnAttention, DotAndScaledDotAreTheQueryTimesEachKey) {
  torch::NoGradGuard no_grad;
  expect_scores(RnnAttention(AttentionScore::kDot, 2, 2)->scores(kQuery, kKeys), {1, 2, 3});
  expect_scores(RnnAttention(AttentionScore::kScaledDot, 2, 2)->scores(kQuery, kKeys),
                {1 / std::sqrt(2.0), 2 / std::sqrt(2.0), 3 / std::sqrt(2.0)});
  EXPECT_THROW(RnnAttention(AttentionScore::kDot, 2, 4), std::invalid_argument);
}

TEST(RnnAttention, GeneralIsBilinear) {
  torch::NoGradGuard no_grad;
  RnnAttention attention(AttentionScore::kGeneral, 2, 2);
  // W = [[1, 2], [0, 1]]: q^T W k for k = (1,0): (1,2).(1,0) = 1; (0,1): (1,2).(2,1) = 4; (1,1): (1,2).(3,1) = 5.
  attention->named_parameters()["W.weight"].copy_(torch::tensor({1.0f, 2.0f, 0.0f, 1.0f}).view({2, 2}));
  expect_scores(attention->scores(kQuery, kKeys), {1, 4, 5});
}

TEST(RnnAttention, AdditiveIsBahdanausTanhLayer) {
  torch::NoGradGuard no_grad;
  RnnAttention attention(AttentionScore::kAdditive, 2, 2, 2);
  auto p = attention->named_parameters();
  // W_k = I, W_q = [[0.5, 0], [0, -1]] with bias (0.1, 0), v = (1, 2):
  // score(k) = tanh(k1 + 0.5 + 0.1) + 2 tanh(k2 - 2).
  p["W_k.weight"].copy_(torch::eye(2));
  p["W_q.weight"].copy_(torch::tensor({0.5f, 0.0f, 0.0f, -1.0f}).view({2, 2}));
  p["W_q.bias"].copy_(torch::tensor({0.1f, 0.0f}));
  p["v.weight"].copy_(torch::tensor({{1.0f, 2.0f}}));
  const auto score = [](double k1, double k2) { return std::tanh(k1 + 0.6) + 2 * std::tanh(k2 - 2); };
  expect_scores(attention->scores(kQuery, kKeys), {score(1, 0), score(0, 1), score(1, 1)});
}

TEST(RnnAttention, PaddingGetsNoWeightAndTheContextIsTheWeightedKeys) {
  torch::NoGradGuard no_grad;
  RnnAttention attention(AttentionScore::kDot, 2, 2);
  const auto padding = torch::tensor({false, true, false}).view({1, 3});
  auto [context, weights] = attention(kQuery, kKeys, attention->prepare_keys(kKeys), padding);
  EXPECT_EQ(weights[0][1].item<float>(), 0.0f);
  // Softmax over the scores 1 and 3 of the real keys.
  const double w0 = std::exp(1.0) / (std::exp(1.0) + std::exp(3.0)), w2 = 1 - w0;
  EXPECT_NEAR(weights[0][0].item<double>(), w0, 1e-6);
  EXPECT_NEAR(weights[0][2].item<double>(), w2, 1e-6);
  EXPECT_NEAR(context[0][0].item<double>(), w0 * 1 + w2 * 1, 1e-6);
  EXPECT_NEAR(context[0][1].item<double>(), w0 * 0 + w2 * 1, 1e-6);
}

}  // namespace
}  // namespace dls::rnn_attention_test

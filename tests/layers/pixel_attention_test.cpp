#include "dls/layers/pixel_attention.h"

#include <gtest/gtest.h>

#include <torch/torch.h>

#include "dls/layers/attention.h"
#include "support/torch_fixture.h"

namespace dls {
namespace {

TEST(AttentionBlock, KeepsTheShapeAndStartsAsTheIdentity) {
  torch::manual_seed(1);
  AttentionBlock block(AttentionBlockOptions(64).num_heads(4));
  const auto x = torch::randn({2, 64, 5, 6});
  torch::Tensor weights;
  const auto out = block->forward_with_weights(x, &weights);
  EXPECT_EQ(out.sizes(), x.sizes());
  EXPECT_TRUE(torch::equal(out, x)) << "proj_out starts at zero";
  EXPECT_EQ(weights.sizes(), torch::IntArrayRef({2, 4, 30, 30}));  // [B, N, T, T], T = H*W
  EXPECT_TRUE(torch::allclose(weights.sum(-1), torch::ones({2, 4, 30}), 1e-5, 1e-5));
  // Any number of spatial axes: [B, C, T] works as well.
  EXPECT_EQ(block(torch::randn({3, 64, 7})).sizes(), torch::IntArrayRef({3, 64, 7}));
}

TEST(AttentionBlock, ParametersAreDLStudios) {
  AttentionBlock block(AttentionBlockOptions(64).num_heads(2));
  const auto parameters = block->named_parameters();
  ASSERT_EQ(parameters.size(), 6u);  // QKVAttention has none
  EXPECT_EQ(parameters["norm.weight"].sizes(), torch::IntArrayRef({64}));
  EXPECT_EQ(parameters["qkv.weight"].sizes(), torch::IntArrayRef({192, 64, 1}));
  EXPECT_EQ(parameters["qkv.bias"].sizes(), torch::IntArrayRef({192}));
  EXPECT_EQ(parameters["proj_out.weight"].sizes(), torch::IntArrayRef({64, 64, 1}));
  std::int64_t count = 0;
  for (const auto& p : block->parameters()) count += p.numel();
  EXPECT_EQ(count, 4 * 64 * 64 + 6 * 64);  // 2C (norm) + 3C^2 + 3C (qkv) + C^2 + C (proj_out)
  EXPECT_EQ(torch::count_nonzero(parameters["proj_out.weight"]).item<std::int64_t>(), 0);
  EXPECT_EQ(torch::count_nonzero(parameters["proj_out.bias"]).item<std::int64_t>(), 0);
}

TEST(AttentionBlock, RefusesSizesGroupNormOrTheHeadsCannotSplit) {
  EXPECT_THROW(AttentionBlock(AttentionBlockOptions(48)), c10::Error);  // 48 % 32 != 0
  EXPECT_THROW(AttentionBlock(AttentionBlockOptions(64).num_heads(3)), c10::Error);
  AttentionBlock block(AttentionBlockOptions(32));
  EXPECT_THROW(block(torch::randn({1, 16, 4, 4})), c10::Error);
}

// tests/fixtures/attention_block/attention_block.pt, written by
// make_attention_block_fixture.py (DLStudio's formulation in PyTorch 1.13, random weights).
TEST(AttentionBlock, EqualsDLStudiosPyTorchFormulation) {
  using testing::entry;
  const auto root = testing::load_torch_fixture("attention_block/attention_block.pt");
  const auto config = entry(root, "config").toGenericDict();
  AttentionBlock block(
      AttentionBlockOptions(entry(config, "channels").toInt()).num_heads(entry(config, "num_heads").toInt()));
  auto parameters = block->named_parameters();
  const auto state = entry(root, "state_dict").toGenericDict();
  ASSERT_EQ(state.size(), parameters.size());
  {
    torch::NoGradGuard no_grad;
    for (const auto& item : state) {
      const auto name = item.key().toStringRef();
      ASSERT_TRUE(parameters.contains(name)) << name;
      parameters[name].copy_(item.value().toTensor());
    }
  }
  torch::Tensor weights;
  const auto out = block->forward_with_weights(entry(root, "x").toTensor(), &weights);
  const auto expected = entry(root, "out").toTensor();
  EXPECT_TRUE(torch::allclose(out, expected, 1e-5, 1e-5)) << (out - expected).abs().max();
  const auto expected_weights = entry(root, "weights").toTensor();
  EXPECT_TRUE(torch::allclose(weights, expected_weights, 1e-5, 1e-6)) << (weights - expected_weights).abs().max();
}

// Where the two coincide: the block with N heads on C channels is a residual sum around the
// vaswani layout's SelfAttention with M = C, H = N, no dropout, applied to the group-normed
// pixels as a sequence of T tokens, when head n's WQ, WK, WV are rows n*3c .. n*3c+c-1,
// the next c and the next c of the 1x1 convolution (c = C / N) and W_O is proj_out. Both
// scale Q K^T by 1/sqrt(c) before the softmax (the block as two factors 1/sqrt(sqrt(c))).
TEST(AttentionBlock, EqualsTheVaswaniSelfAttentionOnNormalisedPixels) {
  torch::manual_seed(5);
  const std::int64_t C = 64, N = 4, c = C / N;
  AttentionBlock block(AttentionBlockOptions(C).num_heads(N));
  SelfAttention attention(TransformerConfig().layout(Layout::kVaswani).embedding_size(C).num_heads(N).dropout(0.0));
  {
    torch::NoGradGuard no_grad;
    for (auto& p : block->parameters()) p.copy_(torch::randn_like(p) * 0.3);
    const auto w = block->qkv->weight.squeeze(-1);  // [3C, C]
    const auto& b = block->qkv->bias;
    for (std::int64_t n = 0; n < N; ++n) {
      for (const auto part : {Projection::kQ, Projection::kK, Projection::kV}) {
        const auto first = n * 3 * c + static_cast<std::int64_t>(part) * c;
        const auto projection = attention->head_projection(n, part);
        projection.weight.copy_(w.narrow(0, first, c));
        projection.bias.copy_(b.narrow(0, first, c));
      }
    }
    attention->W_O->weight.copy_(block->proj_out->weight.squeeze(-1));
    attention->W_O->bias.copy_(block->proj_out->bias);
  }
  const auto x = torch::randn({2, C, 4, 5});
  torch::Tensor block_weights;
  const auto out = block->forward_with_weights(x, &block_weights);
  // [B, C, H, W] -> tokens [B, T, C]
  const auto tokens = block->norm(x.reshape({2, C, -1})).transpose(1, 2);
  for (const bool per_head : {false, true}) {
    torch::Tensor word_weights;
    const auto z = per_head ? attention->forward_per_head(tokens, torch::Tensor(), &word_weights)
                            : attention->forward(tokens, torch::Tensor(), &word_weights);  // [B, T, C]
    const auto expected = x + z.transpose(1, 2).reshape(x.sizes());
    EXPECT_TRUE(torch::allclose(out, expected, 1e-5, 1e-5)) << per_head << " " << (out - expected).abs().max();
    EXPECT_TRUE(torch::allclose(block_weights, word_weights, 1e-5, 1e-6)) << per_head;
  }
}

TEST(AttentionBlock, GradientsReachEveryParameterOnceProjOutIsNotZero) {
  torch::manual_seed(2);
  AttentionBlock block(AttentionBlockOptions(32).num_heads(2));
  {
    torch::NoGradGuard no_grad;
    block->proj_out->weight.normal_(0, 0.1);
  }
  block(torch::randn({2, 32, 3, 3})).pow(2).sum().backward();
  for (const auto& item : block->named_parameters()) {
    ASSERT_TRUE(item.value().grad().defined()) << item.key();
    EXPECT_GT(item.value().grad().abs().sum().item<double>(), 0) << item.key();
  }
}

}  // namespace
}  // namespace dls

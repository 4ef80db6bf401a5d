#include "dls/models/encoder.h"

#include <gtest/gtest.h>

#include <torch/torch.h>

#include "dls/layers/feed_forward.h"
#include "support/small_models.h"

namespace dls {
namespace {

using testing::block_config;

// Each variant computed by hand from the block's own sublayers.
torch::Tensor by_hand(BasicEncoder& block, const TransformerConfig& config, const torch::Tensor& x) {
  auto ffn = [&](const torch::Tensor& h) { return feed_forward(h, block->W1, block->W2, block->dropout, config); };
  if (config.variant() == Variant::kFG) {
    const auto h = block->norm1(x + block->self_attention_layer(x));
    return block->norm2(h + ffn(h));
  }
  const auto y = x + block->self_attention_layer(block->norm1(x));
  return y + ffn(block->norm2(y));
}

class EncoderBlocks : public ::testing::TestWithParam<std::tuple<Variant, Layout>> {};

TEST_P(EncoderBlocks, LayerNormPlacementIsTheVariants) {
  const auto [variant, layout] = GetParam();
  const auto config = block_config(variant, layout);
  const auto other = block_config(variant == Variant::kFG ? Variant::kPreLN : Variant::kFG, layout);
  torch::manual_seed(3);
  BasicEncoder block(config);
  {
    // Non-trivial LayerNorm affine parameters, so that every placement differs.
    torch::NoGradGuard no_grad;
    for (auto* norm : {&block->norm1, &block->norm2}) {
      (*norm)->weight.uniform_(0.5, 1.5);
      (*norm)->bias.uniform_(-0.5, 0.5);
    }
  }
  const auto x = torch::randn({3, 6, 16}) * 3 + 1;
  const auto out = block(x);
  EXPECT_EQ(out.sizes(), x.sizes());
  EXPECT_TRUE(torch::allclose(out, by_hand(block, config, x), 1e-5, 1e-5));
  // The same weights composed the other variant's way give something else.
  EXPECT_FALSE(torch::allclose(out, by_hand(block, other, x), 1e-3, 1e-3));
}

INSTANTIATE_TEST_SUITE_P(
    Variants, EncoderBlocks,
    ::testing::Combine(::testing::Values(Variant::kFG, Variant::kPreLN),
                       ::testing::Values(Layout::kDLStudio, Layout::kPositionwise, Layout::kVaswani)),
    [](const auto& info) { return to_string(std::get<0>(info.param)) + "_" + to_string(std::get<1>(info.param)); });

TEST(Encoder, FGOutputsAreLayerNormalisedPreLNOutputsAreNot) {
  torch::manual_seed(5);
  const auto x = torch::randn({2, 6, 16}) * 4 + 2;
  BasicEncoder fg(block_config(Variant::kFG, Layout::kDLStudio));
  BasicEncoder pre(block_config(Variant::kPreLN, Layout::kDLStudio));
  const auto fg_out = fg(x), pre_out = pre(x);
  // Default LayerNorm (gamma 1, beta 0) last: every row has mean 0 and variance 1.
  EXPECT_LT(fg_out.mean(-1).abs().max().item<float>(), 1e-5);
  EXPECT_NEAR(fg_out.var(-1, false).mean().item<float>(), 1.0, 1e-3);
  // PreLN ends with a residual sum: its rows keep the input's offset of about 2.
  EXPECT_GT(pre_out.mean(-1).abs().mean().item<float>(), 0.5);
}

TEST(MasterEncoder, StacksBlocksAndReportsWeights) {
  const auto config = block_config(Variant::kFG, Layout::kVaswani);
  MasterEncoder encoder(config, 3);
  std::vector<torch::Tensor> weights;
  const auto x = torch::randn({2, 5, 16});
  const auto out = encoder(x, torch::Tensor(), &weights);
  EXPECT_EQ(out.sizes(), x.sizes());
  ASSERT_EQ(weights.size(), 3u);
  EXPECT_EQ(weights[2].sizes(), torch::IntArrayRef({2, 4, 5, 5}));
  auto manual = x;
  for (const auto& block : *encoder->basic_encoder_arr) manual = block->as<BasicEncoderImpl>()->forward(manual);
  EXPECT_TRUE(torch::allclose(out, manual));
}

}  // namespace
}  // namespace dls

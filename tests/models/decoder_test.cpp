#include "dls/models/decoder.h"

#include <gtest/gtest.h>

#include <torch/torch.h>

#include "dls/layers/feed_forward.h"

namespace dls {
namespace {

TransformerConfig config_for(Variant variant, Layout layout) {
  TransformerConfig config;
  config.variant(variant).layout(layout).embedding_size(16).num_heads(4).max_seq_length(6);
  return config;
}

// DLStudio's two layouts mask by zeroing rows and run one copy per prefix.
class DLStudioDecoder : public ::testing::TestWithParam<std::tuple<Variant, Layout>> {
 protected:
  TransformerConfig config() const {
    return config_for(std::get<0>(GetParam()), std::get<1>(GetParam()));
  }
};

TEST_P(DLStudioDecoder, BatchedPrefixesEqualThePlainLoop) {
  torch::manual_seed(11);
  MasterDecoderWithMasking decoder(config(), 3, 31);
  const auto target = torch::randn({4, 6, 16});
  const auto encoder_out = torch::randn({4, 6, 16});
  const auto batched = decoder(target, encoder_out);
  const auto loop = decoder->forward_prefix_loop(target, encoder_out);
  ASSERT_EQ(batched.sizes(), torch::IntArrayRef({4, 5, 31}));
  EXPECT_TRUE(torch::allclose(batched, loop, 1e-5, 1e-5)) << (batched - loop).abs().max();
  // Gradients agree too.
  auto target_a = target.clone().requires_grad_(true);
  auto target_b = target.clone().requires_grad_(true);
  decoder(target_a, encoder_out).sum().backward();
  decoder->forward_prefix_loop(target_b, encoder_out).sum().backward();
  EXPECT_TRUE(torch::allclose(target_a.grad(), target_b.grad(), 1e-4, 1e-5));
}

TEST_P(DLStudioDecoder, FutureRowsAreZeroedAtEveryLayer) {
  // With prefix k, the values in rows >= k of the input must not matter.
  torch::manual_seed(12);
  MasterDecoderWithMasking decoder(config(), 2, 13);
  const auto encoder_out = torch::randn({2, 6, 16});
  const auto memories = decoder->project_memories(encoder_out);
  auto target = torch::randn({2, 6, 16});
  auto changed = target.clone();
  changed.narrow(1, 3, 3).normal_();
  EXPECT_TRUE(torch::allclose(decoder->predict_word(target, memories, 3),
                              decoder->predict_word(changed, memories, 3)));
  EXPECT_FALSE(torch::allclose(decoder->predict_word(target, memories, 4),
                               decoder->predict_word(changed, memories, 4)));
}

INSTANTIATE_TEST_SUITE_P(Variants, DLStudioDecoder,
                         ::testing::Combine(::testing::Values(Variant::kFG, Variant::kPreLN),
                                            ::testing::Values(Layout::kDLStudio,
                                                              Layout::kPositionwise)),
                         [](const auto& info) {
                           return to_string(std::get<0>(info.param)) + "_" +
                                  to_string(std::get<1>(info.param));
                         });

TEST(Decoder, FGHasNoResidualAroundCrossAttentionInTheDLStudioLayout) {
  torch::manual_seed(13);
  const auto config = config_for(Variant::kFG, Layout::kDLStudio);
  BasicDecoderWithMasking block(config);
  const auto x = torch::randn({2, 6, 16});
  const auto encoder_out = torch::randn({2, 6, 16});
  const auto memory = block->cross_attn_layer->project_memory(encoder_out);
  const auto out = block(x, memory, DecoderMasks{});
  const auto z = block->norm1(x + block->self_attention_layer(x));
  const auto z2 = block->norm2(block->cross_attn_layer(z, encoder_out));
  const auto expected =
      block->norm3(z2 + feed_forward(z2, block->W1, block->W2, block->dropout, config));
  EXPECT_TRUE(torch::allclose(out, expected, 1e-5, 1e-5));
}

TEST(Decoder, PreLNHasResidualsAroundAllThreeSublayers) {
  torch::manual_seed(14);
  const auto config = config_for(Variant::kPreLN, Layout::kVaswani);
  BasicDecoderWithMasking block(config);
  block->eval();
  const auto x = torch::randn({2, 6, 16});
  const auto encoder_out = torch::randn({2, 6, 16});
  const auto memory = block->cross_attn_layer->project_memory(encoder_out);
  const auto out = block(x, memory, DecoderMasks{});
  const auto y = x + block->self_attention_layer(block->norm1(x));
  const auto y2 = y + block->cross_attn_layer(block->norm2(y), encoder_out);
  const auto expected =
      y2 + feed_forward(block->norm3(y2), block->W1, block->W2, block->dropout, config);
  EXPECT_TRUE(torch::allclose(out, expected, 1e-5, 1e-5));
}

class VaswaniDecoder : public ::testing::TestWithParam<Variant> {};

TEST_P(VaswaniDecoder, CachedStepsEqualTheCausalPass) {
  torch::manual_seed(15);
  MasterDecoderWithMasking decoder(config_for(GetParam(), Layout::kVaswani), 2, 17);
  decoder->eval();
  torch::NoGradGuard no_grad;
  const auto target = torch::randn({3, 6, 16});
  const auto encoder_out = torch::randn({3, 6, 16});
  const auto padding = torch::tensor({{0, 0, 0, 0, 1, 1}, {0, 0, 0, 0, 0, 0}, {0, 0, 0, 1, 1, 1}})
                           .to(torch::kBool);
  const auto full = decoder(target, encoder_out, padding);  // [3, 5, 17]
  const auto memories = decoder->project_memories(encoder_out);
  std::vector<KeyValueCache> caches(2);
  for (std::int64_t t = 0; t < 5; ++t) {
    const auto step = decoder->predict_next(target.narrow(1, t, 1), memories,
                                            key_padding_mask(padding), caches, 6);
    EXPECT_TRUE(torch::allclose(step, full.select(1, t), 1e-5, 1e-5)) << "position " << t;
  }
}

INSTANTIATE_TEST_SUITE_P(Variants, VaswaniDecoder, ::testing::Values(Variant::kFG, Variant::kPreLN),
                         [](const auto& info) { return to_string(info.param); });

}  // namespace
}  // namespace dls

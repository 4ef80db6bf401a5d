#include "dls/models/decoder.h"

#include <gtest/gtest.h>

#include <torch/torch.h>

#include "dls/layers/feed_forward.h"
#include "dls/util/precision.h"
#include "support/small_models.h"

namespace dls {
namespace {

using testing::block_config;

// DLStudio's two layouts mask by zeroing rows and run one copy per prefix.
class DLStudioDecoder : public ::testing::TestWithParam<std::tuple<Variant, Layout>> {
 protected:
  TransformerConfig config() const { return block_config(std::get<0>(GetParam()), std::get<1>(GetParam())); }
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
  EXPECT_TRUE(torch::allclose(decoder->predict_word(target, memories, 3), decoder->predict_word(changed, memories, 3)));
  EXPECT_FALSE(
      torch::allclose(decoder->predict_word(target, memories, 4), decoder->predict_word(changed, memories, 4)));
}

// The batched pass's trace: row i of every layer is the attention of the query that predicts
// word i+1, from its own prefix copy -- the plain loop's pass for k = i+1, row k -- with the
// zeroed keys after position i at 0 in self-attention.
TEST_P(DLStudioDecoder, EachTracedRowComesFromItsOwnPrefixPass) {
  torch::manual_seed(13);
  MasterDecoderWithMasking decoder(config(), 2, 13);
  decoder->eval();
  const std::int64_t batch = 2, length = 6;
  const auto target = torch::randn({batch, length, 16});
  const auto encoder_out = torch::randn({batch, length, 16});
  AttentionTrace trace;
  decoder->forward(target, encoder_out, torch::Tensor{}, torch::Tensor{}, &trace);
  ASSERT_EQ(trace.decoder_self.size(), 2u);
  ASSERT_EQ(trace.decoder_self[0].sizes(), torch::IntArrayRef({batch, 4, length - 1, length}));
  ASSERT_EQ(trace.decoder_cross[1].sizes(), torch::IntArrayRef({batch, 4, length - 1, length}));
  const auto memories = decoder->project_memories(encoder_out);
  for (std::int64_t k = 1; k < length; ++k) {
    AttentionTrace one;
    decoder->predict_word(target, memories, k, &one);
    for (std::size_t layer = 0; layer < 2; ++layer) {
      auto self = one.decoder_self[layer].select(2, k).clone();  // [B, H, L]
      EXPECT_GT(self.narrow(2, k, length - k).sum().item<double>(), 0) << "the zeroed keys have weight";
      self.narrow(2, k, length - k).zero_();
      EXPECT_TRUE(torch::allclose(trace.decoder_self[layer].select(2, k - 1), self, 1e-5, 1e-6)) << k;
      EXPECT_TRUE(torch::allclose(trace.decoder_cross[layer].select(2, k - 1), one.decoder_cross[layer].select(2, k),
                                  1e-5, 1e-6))
          << k;
    }
  }
  EXPECT_TRUE(trace.decoder_self[1].sum(-1).le(1 + 1e-5).all().item<bool>());
  EXPECT_TRUE(torch::allclose(trace.decoder_cross[1].sum(-1), torch::ones({batch, 4, length - 1}), 1e-5, 1e-5));
}

// The stack as DLStudio's layout defines it, every product computed in full: the L-1
// zero-masked copies through every layer, then row k of copy k-1.
torch::Tensor full_prefix_stack(MasterDecoderWithMasking& decoder, const torch::Tensor& target,
                                const torch::Tensor& encoder_out) {
  const std::int64_t batch = target.size(0), length = target.size(1), copies = length - 1;
  const auto memories = decoder->project_memories(encoder_out);
  DecoderMasks masks;
  masks.row_keep = prefix_row_keep(1, copies, batch, length, target.options());
  auto x = target.repeat({copies, 1, 1});
  for (std::size_t i = 0; i < decoder->basic_decoder_arr->size(); ++i) {
    x = decoder->basic_decoder_arr[i]->as<BasicDecoderWithMaskingImpl>()->forward(x, memories[i], masks);
  }
  const auto rows = torch::diagonal(x.view({copies, batch, length, -1}).narrow(2, 1, copies), 0, 0, 2);
  return torch::log_softmax(decoder->out(rows.permute({0, 2, 1})), -1);
}

// forward() skips W2's outputs that no later step reads; values and every gradient must
// equal the stack computed in full.
TEST_P(DLStudioDecoder, SkippedFfnOutputsChangeNothing) {
  torch::manual_seed(13);
  MasterDecoderWithMasking decoder(config(), 3, 29);
  const auto target = torch::randn({3, 6, 16});
  const auto encoder_out = torch::randn({3, 6, 16});
  const auto weights = torch::randn({3, 5, 29});  // a loss that reads every output
  auto grads = [&](bool skipping) {
    decoder->zero_grad();
    auto t = target.clone().requires_grad_(true);
    const auto out = skipping ? decoder(t, encoder_out) : full_prefix_stack(decoder, t, encoder_out);
    (out * weights).sum().backward();
    std::vector<torch::Tensor> g{out.detach(), t.grad()};
    for (const auto& p : decoder->parameters()) g.push_back(p.grad().clone());
    return g;
  };
  const auto skipping = grads(true);
  const auto full = grads(false);
  decoder->skip_unread_ffn_outputs = false;  // the A/B switch computes everything, same values
  EXPECT_TRUE(torch::allclose(decoder(target, encoder_out), full[0], 1e-4, 1e-5));
  ASSERT_EQ(skipping.size(), full.size());
  for (std::size_t i = 0; i < full.size(); ++i) {
    EXPECT_TRUE(torch::allclose(skipping[i], full[i], 1e-4, 1e-5))
        << "tensor " << i << ": " << (skipping[i] - full[i]).abs().max();
  }
}

INSTANTIATE_TEST_SUITE_P(Variants, DLStudioDecoder,
                         ::testing::Combine(::testing::Values(Variant::kFG, Variant::kPreLN),
                                            ::testing::Values(Layout::kDLStudio, Layout::kPositionwise)),
                         [](const auto& info) {
                           return to_string(std::get<0>(info.param)) + "_" + to_string(std::get<1>(info.param));
                         });

TEST(Decoder, FGHasNoResidualAroundCrossAttentionInTheDLStudioLayout) {
  torch::manual_seed(13);
  const auto config = block_config(Variant::kFG, Layout::kDLStudio);
  BasicDecoderWithMasking block(config);
  const auto x = torch::randn({2, 6, 16});
  const auto encoder_out = torch::randn({2, 6, 16});
  const auto memory = block->cross_attn_layer->project_memory(encoder_out);
  const auto out = block(x, memory, DecoderMasks{});
  const auto z = block->norm1(x + block->self_attention_layer(x));
  const auto z2 = block->norm2(block->cross_attn_layer(z, encoder_out));
  const auto expected = block->norm3(z2 + feed_forward(z2, block->W1, block->W2, block->dropout, config));
  EXPECT_TRUE(torch::allclose(out, expected, 1e-5, 1e-5));
}

TEST(Decoder, PreLNHasResidualsAroundAllThreeSublayers) {
  torch::manual_seed(14);
  const auto config = block_config(Variant::kPreLN, Layout::kVaswani);
  BasicDecoderWithMasking block(config);
  block->eval();
  const auto x = torch::randn({2, 6, 16});
  const auto encoder_out = torch::randn({2, 6, 16});
  const auto memory = block->cross_attn_layer->project_memory(encoder_out);
  const auto out = block(x, memory, DecoderMasks{});
  const auto y = x + block->self_attention_layer(block->norm1(x));
  const auto y2 = y + block->cross_attn_layer(block->norm2(y), encoder_out);
  const auto expected = y2 + feed_forward(block->norm3(y2), block->W1, block->W2, block->dropout, config);
  EXPECT_TRUE(torch::allclose(out, expected, 1e-5, 1e-5));
}

class VaswaniDecoder : public ::testing::TestWithParam<Variant> {};

TEST_P(VaswaniDecoder, CachedStepsEqualTheCausalPass) {
  torch::manual_seed(15);
  MasterDecoderWithMasking decoder(block_config(GetParam(), Layout::kVaswani), 2, 17);
  decoder->eval();
  torch::NoGradGuard no_grad;
  const auto target = torch::randn({3, 6, 16});
  const auto encoder_out = torch::randn({3, 6, 16});
  const auto padding = torch::tensor({{0, 0, 0, 0, 1, 1}, {0, 0, 0, 0, 0, 0}, {0, 0, 0, 1, 1, 1}}).to(torch::kBool);
  const auto full = decoder(target, encoder_out, padding);  // [3, 5, 17]
  const auto memories = decoder->project_memories(encoder_out);
  std::vector<KeyValueCache> caches(2);
  for (std::int64_t t = 0; t < 5; ++t) {
    const auto step = decoder->predict_next(target.narrow(1, t, 1), memories, key_padding_mask(padding), caches, 6);
    EXPECT_TRUE(torch::allclose(step, full.select(1, t), 1e-5, 1e-5)) << "position " << t;
  }
}

INSTANTIATE_TEST_SUITE_P(Variants, VaswaniDecoder, ::testing::Values(Variant::kFG, Variant::kPreLN),
                         [](const auto& info) { return to_string(info.param); });

// Copy i of r (k = k_first + i, rows i*B .. (i+1)*B-1) passes positions j < k on and
// predicts at position k.
TEST(DLStudioDecoderRows, PrefixFfnRows) {
  const auto inner = prefix_ffn_rows(1, 3, 2, 4, false);  // k = 1, 2, 3; B = 2; L = 4
  const std::vector<std::pair<std::int64_t, std::int64_t>> expected_inner{{0, 6}, {2, 6}, {4, 6}, {6, 6}};
  const auto last = prefix_ffn_rows(1, 3, 2, 4, true);
  const std::vector<std::pair<std::int64_t, std::int64_t>> expected_last{{0, 0}, {0, 2}, {2, 4}, {4, 6}};
  ASSERT_EQ(inner.size(), 4U);
  ASSERT_EQ(last.size(), 4U);
  for (std::size_t j = 0; j < 4; ++j) {
    EXPECT_EQ(inner[j].begin >= inner[j].end, expected_inner[j].first >= expected_inner[j].second) << j;
    if (inner[j].begin < inner[j].end) {
      EXPECT_EQ(inner[j].begin, expected_inner[j].first) << j;
      EXPECT_EQ(inner[j].end, expected_inner[j].second) << j;
    }
    EXPECT_EQ(last[j].begin >= last[j].end, expected_last[j].first >= expected_last[j].second) << j;
    if (last[j].begin < last[j].end) {
      EXPECT_EQ(last[j].begin, expected_last[j].first) << j;
      EXPECT_EQ(last[j].end, expected_last[j].second) << j;
    }
  }
  // One copy with k = 2 (decoding): positions 0, 1 for the inner layers, 2 for the last.
  const auto one = prefix_ffn_rows(2, 1, 5, 4, false);
  EXPECT_EQ(one[0].end - one[0].begin, 5);
  EXPECT_EQ(one[1].end - one[1].begin, 5);
  EXPECT_GE(one[2].begin, one[2].end);
  const auto one_last = prefix_ffn_rows(2, 1, 5, 4, true);
  EXPECT_EQ(one_last[2].begin, 0);
  EXPECT_EQ(one_last[2].end, 5);
  EXPECT_GE(one_last[1].begin, one_last[1].end);
}

// Block j of the output only for rows[j], zero elsewhere, against the full product with the
// skipped entries masked out; gradients against the full product's with those entries'
// upstream gradient cut.
TEST(ColumnBlockLinear, EqualsTheMaskedFullProduct) {
  torch::manual_seed(14);
  constexpr std::int64_t kRows = 7, kIn = 9, kBlock = 3, kBlocks = 4;
  const std::vector<RowRange> rows{{0, 7}, {2, 5}, {6, 6}, {6, 7}};
  auto keep = torch::zeros({kRows, kBlocks * kBlock});
  for (std::int64_t j = 0; j < kBlocks; ++j) {
    const auto [begin, end] = rows[static_cast<std::size_t>(j)];
    if (begin < end) keep.narrow(0, begin, end - begin).narrow(1, j * kBlock, kBlock).fill_(1.0);
  }
  const auto h0 = torch::randn({kRows, kIn});
  const auto w0 = torch::randn({kBlocks * kBlock, kIn});
  const auto b0 = torch::randn({kBlocks * kBlock});
  const auto upstream = torch::randn({kRows, kBlocks * kBlock});
  auto run = [&](bool blocks) {
    auto h = h0.clone().requires_grad_(true);
    auto w = w0.clone().requires_grad_(true);
    auto b = b0.clone().requires_grad_(true);
    const auto y =
        blocks ? linear_by_column_blocks(h, w, b, kBlock, rows) : torch::nn::functional::linear(h, w, b) * keep;
    (y * upstream).sum().backward();
    return std::vector<torch::Tensor>{y.detach(), h.grad(), w.grad(), b.grad()};
  };
  const auto got = run(true);
  const auto expected = run(false);
  for (std::size_t i = 0; i < got.size(); ++i) {
    EXPECT_TRUE(torch::allclose(got[i], expected[i], 1e-5, 1e-6))
        << "tensor " << i << ": " << (got[i] - expected[i]).abs().max();
  }
  EXPECT_THROW(linear_by_column_blocks(h0, w0, b0, 5, rows), c10::Error);  // 4 x 5 != 12
  EXPECT_THROW(linear_by_column_blocks(h0, w0, b0, kBlock, {{0, 8}, {0, 1}, {0, 1}, {0, 1}}), c10::Error);
}

// Under bf16 autocast (--precision bf16) the blocks run in bf16 as W2 would: y in bf16, equal to
// the autocast product with the skipped entries masked out within bf16's rounding, and float32
// gradients for the float32 weight and bias (backward outside autocast, as the trainer runs it).
TEST(ColumnBlockLinear, RunsInTheAutocastTypeUnderAutocast) {
  torch::manual_seed(15);
  constexpr std::int64_t kRows = 7, kIn = 9, kBlock = 3;
  const std::vector<RowRange> rows{{0, 7}, {2, 5}, {6, 6}, {6, 7}};
  auto keep = torch::zeros({kRows, 4 * kBlock});
  for (std::size_t j = 0; j < rows.size(); ++j) {
    const auto [begin, end] = rows[j];
    if (begin < end)
      keep.narrow(0, begin, end - begin).narrow(1, static_cast<std::int64_t>(j) * kBlock, kBlock).fill_(1);
  }
  const auto h0 = torch::randn({kRows, kIn}), w0 = torch::randn({4 * kBlock, kIn}), b0 = torch::randn({4 * kBlock});
  const auto upstream = torch::randn({kRows, 4 * kBlock});
  auto run = [&](bool blocks) {
    auto h = h0.clone().requires_grad_(true), w = w0.clone().requires_grad_(true), b = b0.clone().requires_grad_(true);
    torch::Tensor y;
    {
      const util::AutocastScope autocast(util::autocast_for(util::Precision::kBf16, torch::Device(torch::kCPU)));
      y = blocks ? linear_by_column_blocks(h, w, b, kBlock, rows) : torch::nn::functional::linear(h, w, b) * keep;
    }
    if (blocks) {
      EXPECT_EQ(y.scalar_type(), torch::kBFloat16);
    }
    (y.to(torch::kFloat) * upstream).sum().backward();
    return std::vector<torch::Tensor>{y.detach().to(torch::kFloat), h.grad(), w.grad(), b.grad()};
  };
  const auto got = run(true), expected = run(false);
  for (std::size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].scalar_type(), torch::kFloat) << "tensor " << i;
    EXPECT_LT((got[i] - expected[i]).norm().item<double>(), 2e-2 * expected[i].norm().item<double>())
        << "tensor " << i << ": " << (got[i] - expected[i]).abs().max();
  }
}

// The dlstudio layout's FFN skips W2's unread outputs under bf16 autocast too: they stay 0, and
// the rows it computes are the full W2's.
TEST(ColumnBlockLinear, TheFfnSkipsUnreadOutputsUnderAutocast) {
  torch::manual_seed(16);
  const auto config = block_config(Variant::kFG, Layout::kDLStudio);  // M 16, L 6
  BasicDecoderWithMasking block(config);
  const auto x = torch::randn({4, 6, 16});
  std::vector<RowRange> rows(6, RowRange{0, 4});
  rows[1] = RowRange{2, 4};
  rows[5] = RowRange{0, 0};
  const util::AutocastScope autocast(util::autocast_for(util::Precision::kBf16, torch::Device(torch::kCPU)));
  const auto skipping = feed_forward(x, block->W1, block->W2, block->dropout, config, &rows);
  const auto full = feed_forward(x, block->W1, block->W2, block->dropout, config);
  EXPECT_EQ(skipping.scalar_type(), full.scalar_type());
  EXPECT_EQ(skipping.select(1, 5).abs().max().item<float>(), 0.0f);
  EXPECT_EQ(skipping.select(1, 1).narrow(0, 0, 2).abs().max().item<float>(), 0.0f);
  EXPECT_GT(full.select(1, 5).abs().max().item<float>(), 0.0f);
  const auto computed = skipping.select(1, 0).to(torch::kFloat), expected = full.select(1, 0).to(torch::kFloat);
  EXPECT_TRUE(torch::allclose(computed, expected, 2e-2, 2e-2)) << (computed - expected).abs().max();
}

}  // namespace
}  // namespace dls

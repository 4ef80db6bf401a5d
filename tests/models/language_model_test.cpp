// The decoder-only language model: causality, the decoder stack without cross-attention,
// the layout it needs.
#include <gtest/gtest.h>

#include <torch/torch.h>

#include "dls/models/language_model.h"
#include "support/small_models.h"

namespace dls {
namespace {

LanguageModel small_language_model(Variant variant) {
  LanguageModelConfig config;
  config.transformer(testing::block_config(variant, Layout::kVaswani, 16, 2, 8).ffn_multiplier(2).dropout(0.0));
  config.num_decoders(2).vocab_size(11);
  torch::manual_seed(7);
  LanguageModel model(config);
  model->eval();
  return model;
}

// The positions j whose change altered an output before j (none, for a causal model);
// every change must alter the outputs from j on (so the comparison sees a model that reads
// its input).
int causality_violations(LanguageModel& model) {
  torch::NoGradGuard no_grad;
  const auto tokens = torch::tensor({{0, 5, 6, 7, 8, 9, 10, 1}}, torch::kInt64);
  const auto base = model(tokens);  // [1, 8, V]
  int violations = 0;
  for (std::int64_t j = 1; j < tokens.size(1); ++j) {
    auto changed = tokens.clone();
    changed[0][j] = 4;
    const auto out = model(changed);
    if (!torch::equal(out.narrow(1, 0, j), base.narrow(1, 0, j))) ++violations;
    EXPECT_GT((out.narrow(1, j, 8 - j) - base.narrow(1, j, 8 - j)).abs().max().item<double>(), 1e-4)
        << "position " << j;
  }
  return violations;
}

TEST(LanguageModel, LaterTokensNeverChangeEarlierOutputs) {
  auto fg = small_language_model(Variant::kFG);
  EXPECT_EQ(causality_violations(fg), 0);
  auto preln = small_language_model(Variant::kPreLN);
  EXPECT_EQ(causality_violations(preln), 0);
}

// The check above can fail: without the causal mask (DLStudio's masking=False) it does.
TEST(LanguageModel, CausalityCheckCatchesAModelWithoutTheMask) {
  auto unmasked = small_language_model(Variant::kFG);
  unmasked->master_decoder->masking = false;
  EXPECT_EQ(causality_violations(unmasked), 7);
}

TEST(LanguageModel, OutputsAreLogProbabilitiesOfTheNextToken) {
  auto model = small_language_model(Variant::kPreLN);
  torch::NoGradGuard no_grad;
  const auto tokens = torch::tensor({{0, 5, 6}, {0, 7, 1}}, torch::kInt64);
  const auto out = model(tokens);
  ASSERT_EQ(out.sizes(), (std::vector<std::int64_t>{2, 3, 11}));
  EXPECT_TRUE(torch::allclose(out.exp().sum(-1), torch::ones({2, 3}), 1e-5, 1e-5));
  // A prefix alone gives the same predictions as the prefix inside a longer sequence.
  EXPECT_TRUE(torch::allclose(model(tokens.narrow(1, 0, 2)), out.narrow(1, 0, 2), 1e-5, 1e-6));
}

TEST(LanguageModel, DecoderBlocksHaveNoCrossAttention) {
  auto model = small_language_model(Variant::kFG);
  bool has_self_attention = false;
  for (const auto& item : model->named_parameters()) {
    EXPECT_EQ(item.key().find("cross_attn_layer"), std::string::npos) << item.key();
    EXPECT_EQ(item.key().find("norm2"), std::string::npos) << item.key();
    has_self_attention = has_self_attention || item.key().find("self_attention_layer") != std::string::npos;
  }
  EXPECT_TRUE(has_self_attention);
  EXPECT_FALSE(model->master_decoder->has_cross_attention());
}

TEST(LanguageModel, NeedsTheVaswaniLayout) {
  LanguageModelConfig config;
  config.transformer().layout(Layout::kDLStudio).embedding_size(16).num_heads(2).max_seq_length(8);
  config.vocab_size(11);
  EXPECT_THROW(LanguageModel{config}, c10::Error);
}

}  // namespace
}  // namespace dls

#include "dls/models/seq2seq.h"

#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include <torch/torch.h>

#include "dls/layers/saved_tensors.h"
#include "support/small_models.h"

namespace dls {
namespace {

using testing::kAllVariantLayouts;
using testing::random_tokens;
using testing::small_config;
using testing::VariantLayout;

TEST(Seq2Seq, ParameterCountsOfTheSlides) {
  // The slides' configuration: M = 256, L = 10, H = 4, 4 encoders, 4 decoders, Spanish
  // vocabulary of 21,823 words, sequence-flattened layout, FG.
  TransformerConfig config;
  config.variant(Variant::kFG).layout(Layout::kDLStudio).embedding_size(256).num_heads(4).max_seq_length(10);
  const auto encoder = count_parameters(*MasterEncoder(config, 4));
  EXPECT_EQ(encoder.parameters, 124583936);
  EXPECT_EQ(encoder.tensors, 128);
  const auto decoder = count_parameters(*MasterDecoderWithMasking(config, 4, 21823));
  EXPECT_EQ(decoder.parameters, 149886015);
  EXPECT_EQ(decoder.tensors, 234);
}

// As saved (saved_tensors.h): the attention layers' fused heads under DLStudio's names.
TEST(Seq2Seq, ParameterNamesReadLikeDLStudios) {
  auto model = TransformerFG(small_config(Variant::kFG, Layout::kDLStudio));
  std::set<std::string> names;
  for (const auto& entry : saved_parameters(*model)) names.insert(entry.first);
  for (const char* name :
       {"embeddings_generator_en.embedding.weight", "embeddings_generator_es.embedding.weight",
        "master_encoder.basic_encoder_arr.1.self_attention_layer.attention_heads_arr.3.WV.bias",
        "master_encoder.basic_encoder_arr.0.norm2.weight", "master_encoder.basic_encoder_arr.0.W1.weight",
        "master_decoder.basic_decoder_arr.1.cross_attn_layer.attention_heads_arr.0.WK.weight",
        "master_decoder.basic_decoder_arr.0.norm3.bias", "master_decoder.out.weight"}) {
    EXPECT_EQ(names.count(name), 1u) << name;
  }
  EXPECT_EQ(TransformerPreLN(small_config(Variant::kFG, Layout::kDLStudio))->config().transformer().variant(),
            Variant::kPreLN);
}

class Seq2SeqModels : public ::testing::TestWithParam<VariantLayout> {
 protected:
  Seq2SeqTransformer make() {
    torch::manual_seed(21);
    auto model = Seq2SeqTransformer(small_config(GetParam().variant, GetParam().layout, 0.1));
    model->eval();  // dropout off: the properties below are about the function
    return model;
  }
};

TEST_P(Seq2SeqModels, ShapesAndDistributions) {
  auto model = make();
  AttentionTrace trace;
  const auto out = model(random_tokens(3, 6, 23), random_tokens(3, 6, 29), &trace);
  ASSERT_EQ(out.sizes(), torch::IntArrayRef({3, 5, 29}));
  EXPECT_TRUE(torch::allclose(out.exp().sum(-1), torch::ones({3, 5}), 1e-5, 1e-5));
  ASSERT_EQ(trace.encoder_self.size(), 2u);
  ASSERT_EQ(trace.decoder_self.size(), 2u);
  ASSERT_EQ(trace.decoder_cross.size(), 2u);
  EXPECT_EQ(trace.encoder_self[0].sizes(), torch::IntArrayRef({3, 4, 6, 6}));
  // The queries of words 1..5; DLStudio's layouts attend to all 6 positions (zeroed ones too).
  const std::int64_t keys = GetParam().layout == Layout::kVaswani ? 5 : 6;
  EXPECT_EQ(trace.decoder_self[1].sizes(), torch::IntArrayRef({3, 4, 5, keys}));
  EXPECT_EQ(trace.decoder_cross[1].sizes(), torch::IntArrayRef({3, 4, 5, 6}));
}

TEST_P(Seq2SeqModels, Causality) {
  // Changing target words at positions >= k never changes the predictions for positions <= k.
  auto model = make();
  torch::NoGradGuard no_grad;
  const auto src = random_tokens(4, 6, 23);
  const auto tgt = random_tokens(4, 6, 29);
  const auto base = model(src, tgt);  // row j-1 predicts position j
  for (std::int64_t k = 1; k < 6; ++k) {
    auto changed = tgt.clone();
    changed.narrow(1, k, 6 - k).copy_(random_tokens(4, 6 - k, 29));
    const auto out = model(src, changed);
    EXPECT_TRUE(torch::allclose(out.narrow(1, 0, k), base.narrow(1, 0, k), 1e-5, 1e-6)) << "k = " << k;
    if (k < 5) {
      // ... while the later predictions do depend on them.
      EXPECT_FALSE(torch::allclose(out.narrow(1, k, 5 - k), base.narrow(1, k, 5 - k), 1e-5, 1e-6)) << "k = " << k;
    }
  }
}

// DLStudio's masking=False: every prediction sees the whole target sentence; for the
// dlstudio layouts it is DLStudio's prefix loop with nothing zeroed, i.e. the stack run once
// on the whole target and row k read for word k.
TEST_P(Seq2SeqModels, WithoutMaskingEveryPredictionSeesTheWholeTarget) {
  auto masked = make();
  auto config = small_config(GetParam().variant, GetParam().layout, 0.1);
  config.masking(false);
  auto model = Seq2SeqTransformer(config);
  model->eval();
  torch::NoGradGuard no_grad;
  {
    auto target = model->named_parameters();
    for (const auto& item : masked->named_parameters()) target[item.key()].copy_(item.value());
  }
  const auto src = random_tokens(3, 6, 23), tgt = random_tokens(3, 6, 29);
  const auto out = model(src, tgt);
  EXPECT_EQ(out.sizes(), torch::IntArrayRef({3, 5, 29}));
  AttentionTrace trace;  // its rows too are the queries of words 1..5
  model(src, tgt, &trace);
  EXPECT_EQ(trace.decoder_cross[0].size(2), 5);
  EXPECT_EQ(trace.decoder_self[0].size(2), 5);
  EXPECT_FALSE(torch::allclose(out.narrow(1, 0, 4), masked(src, tgt).narrow(1, 0, 4), 1e-5, 1e-6));
  auto changed = tgt.clone();
  // Word 4 only (the last one the vaswani layout reads: it predicts words 1..5 from 0..4).
  changed.select(1, 4).copy_(random_tokens(3, 1, 29).squeeze(1));
  EXPECT_FALSE(torch::allclose(model(src, changed).select(1, 0), out.select(1, 0), 1e-5, 1e-6))
      << "the prediction of word 1 sees word 4";
  // Reference: the decoder layers on the unmasked target (vaswani: positions 0..L-2, no
  // causal mask), each prediction read at its row.
  const auto encoded = model->encode(src);
  const bool vaswani = GetParam().layout == Layout::kVaswani;
  auto x = model->embeddings_generator_es(tgt);
  if (vaswani) x = x.narrow(1, 0, 5);
  for (std::size_t i = 0; i < model->master_decoder->basic_decoder_arr->size(); ++i) {
    x = model->master_decoder->basic_decoder_arr[i]->as<BasicDecoderWithMaskingImpl>()->forward(x, encoded.memories[i],
                                                                                                DecoderMasks{});
  }
  const auto expected = torch::log_softmax(model->master_decoder->out(vaswani ? x : x.narrow(1, 1, 5)), -1);
  EXPECT_TRUE(torch::allclose(out, expected, 1e-5, 1e-6)) << (out - expected).abs().max();
  // The flag is part of the model's self-description (its checkpoint key: settings tests).
  EXPECT_NE(config.summary().find("no-masking"), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(All, Seq2SeqModels, ::testing::ValuesIn(kAllVariantLayouts), testing::name_of);

TEST(Seq2Seq, VaswaniIgnoresWhatIsBehindTheSourcePadding) {
  for (const Variant variant : {Variant::kFG, Variant::kPreLN}) {
    torch::manual_seed(22);
    auto model = Seq2SeqTransformer(small_config(variant, Layout::kVaswani, 0.1));
    model->eval();
    torch::NoGradGuard no_grad;
    auto src = random_tokens(2, 6, 23);
    src.narrow(1, 4, 2).fill_(2);  // sentence of 4 tokens, then padding
    const auto padding = src == 2;
    const auto tgt = random_tokens(2, 6, 29);
    const auto base = model(src, tgt);
    auto changed = src.clone();
    changed.narrow(1, 4, 2).copy_(random_tokens(2, 2, 23));  // other words behind the padding
    EXPECT_TRUE(torch::allclose(model(changed, tgt, nullptr, padding), base, 1e-5, 1e-6)) << to_string(variant);
    // Without the mask they would be seen.
    EXPECT_FALSE(torch::allclose(model(changed, tgt), base, 1e-5, 1e-6));
  }
}

// Parameters without repeats: a tensor registered twice would be stepped twice by the optimizer.
std::int64_t distinct_parameter_tensors(const torch::nn::Module& module) {
  std::set<const void*> seen;
  for (const auto& p : module.parameters()) seen.insert(p.unsafeGetTensorImpl());
  return static_cast<std::int64_t>(seen.size());
}

TEST(Seq2Seq, TiedEmbeddingsAreOneParameterTrainedByAllThreeUses) {
  auto config = small_config(Variant::kFG, Layout::kVaswani).tgt_vocab_size(23);
  const std::int64_t V = 23, M = 16;
  torch::manual_seed(31);
  const auto untied = Seq2SeqTransformer(config);
  torch::manual_seed(31);
  auto tied = Seq2SeqTransformer(config.tie_embeddings(true));
  // Two tables [V, M] fewer: the output layer's weight stands for both embeddings.
  EXPECT_EQ(count_parameters(*untied).parameters - count_parameters(*tied).parameters, 2 * V * M);
  EXPECT_EQ(count_parameters(*untied).tensors - count_parameters(*tied).tensors, 2);
  EXPECT_EQ(distinct_parameter_tensors(*tied), static_cast<std::int64_t>(tied->parameters().size()));
  EXPECT_FALSE(tied->embeddings_generator_en->embedding);
  EXPECT_FALSE(tied->embeddings_generator_es->embedding);
  tied->eval();  // no dropout: the embedding is the table's row times sqrt(M)
  const auto& table = tied->master_decoder->out->weight;
  const auto tokens = torch::tensor({{5, 7}}, torch::kLong);
  const auto pe = sinusoidal_positional_encoding(6, M).narrow(0, 0, 2);
  for (auto* generator : {&tied->embeddings_generator_en, &tied->embeddings_generator_es}) {
    const auto expected = table.index_select(0, tokens[0]) * std::sqrt(static_cast<double>(M)) + pe;
    EXPECT_TRUE(torch::allclose((*generator)(tokens)[0], expected, 1e-5, 1e-6));
  }
  // Gradients from each use reach the one tensor: the source embedding alone touches rows 5
  // and 7 only; the target embedding the same; the output layer every row.
  for (auto* generator : {&tied->embeddings_generator_en, &tied->embeddings_generator_es}) {
    tied->zero_grad();
    (*generator)(tokens).sum().backward();
    const auto touched = table.grad().abs().sum(1) > 0;  // [V]
    EXPECT_EQ(touched.sum().item<std::int64_t>(), 2);
    EXPECT_TRUE(touched[5].item<bool>() && touched[7].item<bool>());
  }
  tied->zero_grad();
  const auto src = random_tokens(2, 6, V), tgt = random_tokens(2, 6, V);
  tied->forward(src, tgt).sum().backward();
  const auto full = table.grad().clone();
  EXPECT_GT((full.abs().sum(1) > 0).sum().item<std::int64_t>(), V - 1);
  // The whole gradient holds the embeddings' shares beside the output layer's (the same
  // loss with the decoder's states detached from the embeddings).
  tied->zero_grad();
  torch::log_softmax(tied->master_decoder->out(tied->final_states(src, tgt).detach()), -1).sum().backward();
  EXPECT_FALSE(torch::allclose(full, table.grad(), 1e-6, 1e-7));
}

TEST(Seq2Seq, InvalidConfigsAreRejected) {
  auto config = small_config(Variant::kFG, Layout::kDLStudio);
  config.transformer().num_heads(3);  // 16 % 3 != 0
  EXPECT_THROW(Seq2SeqTransformer{config}, c10::Error);
  config = small_config(Variant::kFG, Layout::kDLStudio);
  config.tgt_vocab_size(0);
  EXPECT_THROW(Seq2SeqTransformer{config}, c10::Error);
  // Tied embeddings: one vocabulary, vaswani layout.
  config = small_config(Variant::kFG, Layout::kVaswani).tie_embeddings(true);  // 23 and 29 words
  EXPECT_THROW(Seq2SeqTransformer{config}, c10::Error);
  config = small_config(Variant::kFG, Layout::kDLStudio).tgt_vocab_size(23).tie_embeddings(true);
  EXPECT_THROW(Seq2SeqTransformer{config}, c10::Error);
  // DLStudio's outputs need a word besides SOS, EOS, <pad> and <unk>.
  config = small_config(Variant::kFG, Layout::kDLStudio).tgt_vocab_size(4).dlstudio_outputs(true);
  EXPECT_THROW(Seq2SeqTransformer{config}, c10::Error);
}

// [..., V] -> [..., V - 2]: the columns of DLStudio's words (SOS, EOS, then words from 4).
torch::Tensor without_pad_and_unk(const torch::Tensor& columns) {
  return torch::cat({columns.narrow(-1, 0, 2), columns.narrow(-1, 4, columns.size(-1) - 4)}, -1);
}

// With DLStudio's outputs the log-softmax runs over DLStudio's words only: <pad> and <unk>
// score -inf, the other columns are the softmax of the same weights without those two
// output rows (what the exported model computes), in forward() and in every decoding step.
TEST(Seq2Seq, DLStudioOutputsLeavePadAndUnkOutOfTheSoftmax) {
  for (const auto& vl : kAllVariantLayouts) {
    SCOPED_TRACE(testing::name_of({vl, 0}));
    auto config = small_config(vl.variant, vl.layout);
    torch::manual_seed(31);
    Seq2SeqTransformer plain(config);
    torch::manual_seed(31);
    Seq2SeqTransformer words_only(config.dlstudio_outputs(true));  // the same weights
    plain->eval();
    words_only->eval();
    torch::NoGradGuard no_grad;
    const auto src = random_tokens(3, 6, 23), tgt = random_tokens(3, 6, 29);
    const auto log_probs = words_only(src, tgt);  // [3, 5, 29]
    EXPECT_TRUE(torch::isneginf(log_probs.narrow(-1, 2, 2)).all().item<bool>());
    const auto expected =
        torch::log_softmax(without_pad_and_unk(plain->master_decoder->scores(plain->final_states(src, tgt))), -1);
    EXPECT_TRUE(torch::allclose(without_pad_and_unk(log_probs), expected, 1e-5, 1e-6));
    // One decoding step (the dlstudio layouts' prefix step, vaswani's cached step).
    const auto encoded = words_only->encode(src);
    torch::Tensor step;
    if (vl.layout == Layout::kVaswani) {
      std::vector<KeyValueCache> caches(words_only->master_decoder->basic_decoder_arr->size());
      step = words_only->master_decoder->predict_next(words_only->embeddings_generator_es(tgt.narrow(1, 0, 1)),
                                                      encoded.memories, torch::Tensor(), caches, 6);
    } else {
      step = words_only->master_decoder->predict_word(words_only->embeddings_generator_es(tgt), encoded.memories, 1);
    }
    EXPECT_TRUE(torch::isneginf(step.narrow(-1, 2, 2)).all().item<bool>());
    EXPECT_TRUE(torch::allclose(without_pad_and_unk(step), expected.select(1, 0), 1e-5, 1e-6));
  }
  // Part of the model's self-description (its checkpoint key: settings tests).
  const auto config = small_config(Variant::kFG, Layout::kDLStudio).dlstudio_outputs(true);
  EXPECT_NE(config.summary().find("dlstudio-outputs"), std::string::npos);
}

}  // namespace
}  // namespace dls

#include "dls/eval/seq2seq_evaluation.h"

#include <gtest/gtest.h>

#include <torch/torch.h>

#include "dls/data/normalize.h"
#include "support/small_models.h"

namespace dls::eval {
namespace {

using torch::indexing::Slice;

// Targets with padding (pad_index 2) in some rows and one row that is all padding.
torch::Tensor padded_targets() {
  auto tgt = testing::random_tokens(7, 6, 29);
  tgt.index_put_({Slice(0, 3), Slice(3, 6)}, 2);
  tgt.index_put_({4, Slice(1, 6)}, 2);
  return tgt;
}

std::vector<torch::Tensor> gradients_of(Seq2SeqTransformer& model, const torch::Tensor& loss) {
  for (auto& p : model->parameters()) p.mutable_grad() = torch::Tensor();
  loss.backward();
  std::vector<torch::Tensor> grads;
  for (const auto& p : model->parameters()) {
    grads.push_back(p.grad().defined() ? p.grad().clone() : torch::zeros_like(p));
  }
  return grads;
}

class LossFromStates : public ::testing::TestWithParam<testing::VariantLayout> {};

// Only the real target tokens' rows go through the output layer: the loss and every
// parameter's gradient equal those of the full log-probabilities, for DLStudio's loss, the
// plain token mean and the label-smoothed one.
TEST_P(LossFromStates, EqualsTheLossOfTheFullLogProbabilities) {
  torch::manual_seed(11);
  Seq2SeqTransformer model(testing::small_config(GetParam().variant, GetParam().layout));
  const auto src = testing::random_tokens(7, 6, 23);
  const auto tgt = padded_targets();
  const auto targets = tgt.narrow(1, 1, 5);
  for (const double smoothing : {-1.0, 0.0, 0.1}) {  // -1: DLStudio's loss
    LossOptions options;
    options.dlstudio = smoothing < 0;
    options.label_smoothing = std::max(smoothing, 0.0);
    options.pad_index = 2;
    const auto full = sequence_loss(model(src, tgt), targets, options);
    const auto packed =
        sequence_loss_from_states(model->master_decoder->out, model->final_states(src, tgt), targets, options);
    EXPECT_NEAR(packed.item<double>(), full.item<double>(), 1e-6) << "smoothing " << smoothing;
    const auto expected = gradients_of(model, full);
    const auto got = gradients_of(model, packed);
    for (std::size_t i = 0; i < got.size(); ++i) {
      EXPECT_TRUE(torch::allclose(got[i], expected[i], 1e-4, 1e-7))
          << "smoothing " << smoothing << ", parameter " << i << ": max difference "
          << (got[i] - expected[i]).abs().max().item<double>();
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AllVariants, LossFromStates, ::testing::ValuesIn(testing::kAllVariantLayouts),
                         testing::name_of);

// forward() is the log-softmax of the output layer over final_states().
TEST(LossFromStates, ForwardIsTheOutputLayerOverTheFinalStates) {
  torch::manual_seed(12);
  for (const auto& vl : testing::kAllVariantLayouts) {
    Seq2SeqTransformer model(testing::small_config(vl.variant, vl.layout));
    model->eval();
    const auto src = testing::random_tokens(3, 6, 23);
    const auto tgt = padded_targets().narrow(0, 0, 3);
    const auto states = model->final_states(src, tgt);
    ASSERT_EQ(states.sizes(), (std::vector<std::int64_t>{3, 5, 16}));
    EXPECT_TRUE(torch::allclose(model(src, tgt), torch::log_softmax(model->master_decoder->out(states), -1)));
  }
}

// A batch without any real target token has loss 0 and zero gradients, as sequence_loss.
TEST(LossFromStates, AllPaddingGivesZero) {
  torch::manual_seed(13);
  Seq2SeqTransformer model(testing::small_config(Variant::kFG, Layout::kVaswani));
  const auto src = testing::random_tokens(2, 6, 23);
  auto tgt = torch::full({2, 6}, 2, torch::kLong);
  tgt.select(1, 0).fill_(0);
  LossOptions options;
  options.pad_index = 2;
  const auto targets = tgt.narrow(1, 1, 5);
  const auto loss =
      sequence_loss_from_states(model->master_decoder->out, model->final_states(src, tgt), targets, options);
  EXPECT_EQ(loss.item<double>(), 0.0);
  EXPECT_EQ(sequence_loss(model(src, tgt), targets, options).item<double>(), 0.0);
  for (const auto& g : gradients_of(model, loss)) EXPECT_EQ(g.abs().max().item<double>(), 0.0);
}

// translate_and_score's three scores are those of its own translations: NLTK's BLEU on the
// words, sacreBLEU's BLEU and chrF2 on the words joined by spaces, signed case:lc.
TEST(TranslateAndScore, ScoresTheTranslationsItReturns) {
  torch::manual_seed(7);
  auto config = testing::small_config(Variant::kFG, Layout::kVaswani);
  std::vector<std::vector<std::string>> spanish_words;
  for (int i = 0; i < 25; ++i) spanish_words.push_back({"w" + std::to_string(i)});
  const auto spanish = data::Vocabulary::build(spanish_words);  // 4 specials + 25 words = 29
  ASSERT_EQ(spanish.size(), 29);
  Seq2SeqTransformer model(config);
  model->eval();
  auto src = testing::random_tokens(5, 6, 23);
  src.select(1, 0).fill_(data::Vocabulary::kSos);
  const std::vector<std::vector<std::string>> references{
      {"w1", "w2", "w3"}, {"w4"}, {"w5", "w6", "w7", "w8"}, {"w9", "w1"}, {"w2", "w2", "w2"}};
  const auto result = translate_and_score(model, src, spanish, references);
  ASSERT_EQ(result.hypotheses.size(), 5u);
  std::vector<std::string> hyp_texts;
  std::vector<std::vector<std::string>> ref_texts;
  std::vector<Tokens> hyps;
  std::vector<std::vector<Tokens>> refs;
  for (std::size_t i = 0; i < 5; ++i) {
    hyps.push_back(strip_special_tokens(result.hypotheses[i]));
    refs.push_back({references[i]});
    hyp_texts.push_back(data::join_words(hyps.back()));
    ref_texts.push_back({data::join_words(references[i])});
  }
  EXPECT_EQ(result.bleu.bleu, corpus_bleu(refs, hyps).bleu);
  EXPECT_EQ(result.sacrebleu.score, sacrebleu_corpus(hyp_texts, ref_texts).score);
  EXPECT_EQ(result.chrf.score, corpus_chrf(hyp_texts, ref_texts).score);
  EXPECT_EQ(result.sacrebleu.signature, "nrefs:1|case:lc|eff:no|tok:13a|smooth:exp|version:dls-cpp");
  EXPECT_EQ(result.chrf.signature, "nrefs:1|case:lc|eff:yes|nc:6|nw:0|space:no|version:dls-cpp");
}

}  // namespace
}  // namespace dls::eval

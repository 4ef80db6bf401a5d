#include "dls/eval/seq2seq_evaluation.h"

#include <gtest/gtest.h>

#include <torch/torch.h>

#include "dls/data/normalize.h"
#include "support/small_models.h"

namespace dls::eval {
namespace {

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

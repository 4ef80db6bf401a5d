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
  // A translation ended by EOS has fewer words than the L - 1 positions after SOS.
  ASSERT_EQ(result.finished.size(), 5u);
  EXPECT_EQ(result.finished, std::vector<bool>(5, true)) << "3, 4, 0, 0 and 0 words, then EOS";
  DecodeOptions shorter;
  shorter.max_length = 4;  // SOS and three words: the first two cannot end
  const auto cut = translate_and_score(model, src, spanish, references, shorter);
  EXPECT_EQ(cut.finished, (std::vector<bool>{false, false, true, true, true}));
  EXPECT_EQ(cut.hypotheses[1].size(), 3u);
  for (std::size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(result.finished[i],
              static_cast<std::int64_t>(result.hypotheses[i].size()) < config.transformer().max_seq_length() - 1)
        << i;
  }
}

// DLStudio's printout closes a translation with EOS only when the decoder wrote it.
TEST(FormatSample, ClosesWithEosOnlyATranslationThatEnded) {
  EXPECT_EQ(format_sample({"i", "am"}, {"estoy"}, {"estoy"}, "TransformerFG"),
            "The input sentence pair:  ['SOS i am EOS'] ['SOS estoy EOS']\n"
            "The translation produced by TransformerFG:  SOS estoy EOS   [CORRECT]");
  EXPECT_EQ(format_sample({"i"}, {"yo"}, {"yo", "yo", "yo"}, "TransformerFG", false),
            "The input sentence pair:  ['SOS i EOS'] ['SOS yo EOS']\n"
            "The translation produced by TransformerFG:  SOS yo yo yo   [WRONG]");
  EXPECT_EQ(format_sample({"i"}, {"yo"}, {}, "TransformerFG"),
            "The input sentence pair:  ['SOS i EOS'] ['SOS yo EOS']\n"
            "The translation produced by TransformerFG:  SOS EOS   [WRONG]");
}

}  // namespace
}  // namespace dls::eval

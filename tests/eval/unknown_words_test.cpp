// Unknown words replaced by their aligned source words (--replace-unk): on hand-made
// alignments each <unk> takes its source word and nothing else changes; the display text
// spells a copied word as the source does; a SentencePiece <unk> is a word of its own; and on a run whose vocabularies
// keep 30 words, the translator replaces each <unk> it wrote with the word its alignment names -- in the best
// translation and the n best, in a sentence longer than the model's whole and in parts --
// and the batched BLEU path gives the translator's words.
#include "dls/eval/unknown_words.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include <torch/torch.h>

#include "dls/data/normalize.h"
#include "dls/eval/seq2seq_evaluation.h"
#include "dls/eval/word_alignment.h"
#include "support/seq2seq_runs.h"

namespace dls::eval::unknown_words_test {
namespace {

const std::string kUnk = "<unk>";

// Sentences of the sample corpus's kinds whose nouns the 30-word vocabularies leave out.
const std::vector<std::string> kSentences = {
    "I eat the bread.",      "You do not eat an apple.",  "We see the dog.",
    "They drink the water.", "She does not see the cat.", "I want the cake.",
};

std::size_t unknowns_in(const std::vector<std::string>& words) {
  return static_cast<std::size_t>(std::count(words.begin(), words.end(), kUnk));
}

TEST(UnknownWords, EachUnkTakesTheSourceWordAlignedToIt) {
  std::vector<std::string> output{kUnk, "come", kUnk, kUnk};
  const std::vector<std::string> source{"tom", "eats", "paella"};
  // Target 0 <- source 0, 1 <- 1 (not <unk>: kept), 2 <- 2, 3 <- a source word that is not there.
  const auto replaced = replace_unknown_words(output, source, {{0, 0}, {1, 1}, {2, 2}, {7, 3}});
  EXPECT_EQ(replaced, 2u);
  EXPECT_EQ(output, (std::vector<std::string>{"tom", "come", "paella", kUnk}));
  EXPECT_TRUE(has_unknown(output));
  EXPECT_FALSE(has_unknown(source));
}

TEST(UnknownWords, ACopiedWordIsShownAsTheSourceSpellsIt) {
  using data::Language;
  EXPECT_EQ(source_spelling("Is Tom here?", "tom", Language::kEnglish), "Tom");
  EXPECT_EQ(source_spelling("\"Tom,\" she said.", "tom", Language::kEnglish), "Tom");
  EXPECT_EQ(source_spelling("¿Dónde está María?", "maría", Language::kSpanish), "María");
  EXPECT_EQ(source_spelling("It costs 3,000 dollars.", "3000", Language::kEnglish), "3,000");
  EXPECT_EQ(source_spelling("Nobody is here.", "tom", Language::kEnglish), "tom");
  // Only the words that replaced an <unk> take the source's spelling.
  EXPECT_EQ(spelt_as_source({kUnk, "ve", kUnk}, {"tom", "ve", "paris"}, "Tom sees Paris.", Language::kEnglish),
            (std::vector<std::string>{"Tom", "ve", "Paris"}));
  EXPECT_EQ(spelt_as_source({"tom", "ve"}, {"tom", "ve"}, "Tom sees.", Language::kEnglish),
            (std::vector<std::string>{"tom", "ve"}));
}

TEST(UnknownWords, ASentencePieceUnkIsAWordOfItsOwn) {
  // Target pieces "▁a <unk> b ▁c": SentencePiece decodes <unk> as " <unk> ", so the words are
  // a, <unk>, b, c (b is not a piece of <unk>'s word). Rows: each target token's writer points
  // at source column 1 + its target word.
  const std::string w = "\xE2\x96\x81";
  const std::vector<std::string> source{"SOS", w + "x", w + "y", w + "z", w + "v", "EOS"};
  const std::vector<std::string> target{"SOS", w + "a", kUnk, "b", w + "c", "EOS"};
  auto weights = torch::zeros({5, 6});
  for (const auto& [row, column] : std::vector<std::pair<int, int>>{{0, 1}, {1, 2}, {2, 3}, {3, 4}, {4, 5}})
    weights[row][column] = 1;
  EXPECT_EQ(alignment_text(hard_alignment(source, target, weights)), "0-0 1-1 2-2 3-3");
}

class ReplacedUnknowns : public ::testing::Test {
 protected:
  static Translator& translator() {
    static auto loaded = Translator::load(test::small_vocabulary_seq2seq_run().string());
    return loaded;
  }
  static DecodeOptions replacing(DecodeOptions decode = {}) {
    decode.replace_unknown = true;
    return decode;
  }
};

// Each translation with --replace-unk is the plain one with every <unk> word replaced by the
// source word of its alignment (Translator::alignment), its tokens unchanged.
void expect_replaced_as_aligned(Translator& translator, const SentenceTranslation& plain,
                                const SentenceTranslation& replaced) {
  SCOPED_TRACE(plain.input + " -> " + plain.raw);
  ASSERT_TRUE(replaced.ok()) << replaced.error;
  EXPECT_EQ(replaced.output_tokens, plain.output_tokens);
  ASSERT_EQ(replaced.output_words.size(), plain.output_words.size());
  const auto alignment = translator.alignment(plain);
  for (std::size_t i = 0; i < plain.output_words.size(); ++i) {
    if (plain.output_words[i] != kUnk) {
      EXPECT_EQ(replaced.output_words[i], plain.output_words[i]) << i;
      continue;
    }
    const auto point = std::find_if(alignment.begin(), alignment.end(),
                                    [&](const AlignmentPoint& p) { return p.target == static_cast<int>(i); });
    ASSERT_NE(point, alignment.end()) << "word " << i << " has no alignment";
    EXPECT_EQ(replaced.output_words[i], plain.words[static_cast<std::size_t>(point->source)]) << i;
  }
  EXPECT_FALSE(has_unknown(replaced.output_words));
  EXPECT_EQ(replaced.raw, data::join_words(replaced.output_words));
  EXPECT_EQ(replaced.text.find(kUnk), std::string::npos) << replaced.text;
}

TEST_F(ReplacedUnknowns, EachUnkBecomesTheSourceWordItsAlignmentNames) {
  const auto plain = translator().translate(kSentences);
  const auto replaced = translator().translate(kSentences, replacing());
  std::size_t unknowns = 0;
  for (const auto& t : plain) unknowns += unknowns_in(t.output_words);
  ASSERT_GE(unknowns, 3u) << "the 30-word run should write <unk> for the nouns it left out";
  for (std::size_t i = 0; i < kSentences.size(); ++i) expect_replaced_as_aligned(translator(), plain[i], replaced[i]);
}

TEST_F(ReplacedUnknowns, TheNBestAreReplacedToo) {
  DecodeOptions beam;
  beam.method = DecodeMethod::kBeam;
  beam.beam_size = 3;
  beam.n_best = 3;
  const auto plain = translator().translate(kSentences, beam);
  const auto replaced = translator().translate(kSentences, replacing(beam));
  std::size_t alternatives_with_unknowns = 0;
  for (std::size_t i = 0; i < kSentences.size(); ++i) {
    expect_replaced_as_aligned(translator(), plain[i], replaced[i]);
    ASSERT_EQ(replaced[i].n_best.size(), plain[i].n_best.size());
    EXPECT_EQ(replaced[i].n_best.front().raw, replaced[i].raw);
    for (std::size_t k = 0; k < plain[i].n_best.size(); ++k) {
      if (plain[i].n_best[k].raw.find(kUnk) != std::string::npos) ++alternatives_with_unknowns;
      EXPECT_EQ(replaced[i].n_best[k].raw.find(kUnk), std::string::npos) << replaced[i].n_best[k].raw;
      EXPECT_EQ(replaced[i].n_best[k].log_probability, plain[i].n_best[k].log_probability);
    }
  }
  EXPECT_GT(alternatives_with_unknowns, kSentences.size()) << "the n best should hold <unk> beyond the best";
}

// Longer than the model's 8 words: translated in parts by the dlstudio layout, whole by the
// vaswani one; each <unk> replaced as in a short sentence.
TEST_F(ReplacedUnknowns, ALongSentenceIsReplacedInPartsAndWhole) {
  const std::string sentence = "I eat the bread, you do not eat the apple and we see the dog.";
  for (const auto layout : {Layout::kDLStudio, Layout::kVaswani}) {
    SCOPED_TRACE(to_string(layout));
    auto translator = Translator::load(test::small_vocabulary_seq2seq_run(layout).string());
    const auto plain = translator.translate(sentence);
    ASSERT_FALSE(plain.note.empty()) << "the sentence should be longer than the model's";
    EXPECT_EQ(plain.parts.empty(), layout != Layout::kDLStudio) << plain.note;
    ASSERT_GE(unknowns_in(plain.output_words), 1u) << plain.raw;
    expect_replaced_as_aligned(translator, plain, translator.translate(sentence, replacing()));
  }
}

TEST_F(ReplacedUnknowns, BleuScoringReplacesAsTheTranslatorDoes) {
  const auto& loaded = translator().model();
  const auto length = loaded.model.max_seq_length();
  std::vector<std::vector<std::string>> tokens, words, references;
  std::vector<std::int64_t> ids;
  const auto plain = translator().translate(kSentences);
  for (const auto& t : plain) {
    tokens.push_back(t.tokens);
    words.push_back(t.words);
    references.push_back(t.output_words);  // any reference: the words are compared, not the score
    const auto row = loaded.english.encode(t.tokens, static_cast<int>(length), loaded.info.settings.padding());
    ids.insert(ids.end(), row.begin(), row.end());
  }
  const auto src = torch::tensor(ids, torch::kLong).view({static_cast<std::int64_t>(kSentences.size()), length});
  const SourceSentences sources{tokens, words};
  auto decode = replacing();
  decode.batch_size = 4;  // two passes
  const auto scored = translate_and_score(loaded.model, src, loaded.spanish, references, decode, nullptr, &sources);
  const auto replaced = translator().translate(kSentences, replacing());
  std::size_t unknowns = 0;
  for (std::size_t i = 0; i < kSentences.size(); ++i) {
    EXPECT_EQ(scored.hypotheses[i], replaced[i].output_words) << kSentences[i];
    unknowns += unknowns_in(plain[i].output_words);
  }
  EXPECT_EQ(scored.unknown_replaced, unknowns);
  const auto unreplaced = translate_and_score(loaded.model, src, loaded.spanish, references, {}, nullptr, &sources);
  for (std::size_t i = 0; i < kSentences.size(); ++i) EXPECT_EQ(unreplaced.hypotheses[i], plain[i].output_words);
  EXPECT_EQ(unreplaced.unknown_replaced, 0u);
}

}  // namespace
}  // namespace dls::eval::unknown_words_test

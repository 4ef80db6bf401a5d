// SentencePiece subword units trained in memory on the sample corpus: the pieces a
// Vocabulary indexes, the round trip words -> pieces -> words, and the serialized model.
#include "dls/data/subword_model.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "dls/data/corpus.h"
#include "dls/data/vocabulary.h"
#include "support/test_paths.h"
#include "util/sentencepiece_available.h"

namespace dls::data {
namespace {

std::vector<std::vector<std::string>> sample_spanish() {
  const auto corpus = read_corpus(dls::testing::sample_corpus());
  std::vector<std::vector<std::string>> sentences;
  for (const auto& pair : corpus.pairs) sentences.push_back(pair.spanish);
  return sentences;
}

SubwordOptions tiny(SubwordKind kind) {
  SubwordOptions options;
  options.kind = kind;
  options.vocab_size = 100;
  return options;
}

TEST(SubwordModel, PiecesAreAVocabularyWithTheSpecialsFirst) {
  DLS_SKIP_WITHOUT_SENTENCEPIECE();
  const auto model = SubwordModel::train(sample_spanish(), tiny(SubwordKind::kUnigram));
  const auto pieces = model.pieces();
  ASSERT_GT(pieces.size(), 50u);
  EXPECT_LE(pieces.size(), 100u);
  for (int i = 0; i < Vocabulary::kSpecialCount; ++i) EXPECT_EQ(pieces[i], Vocabulary::kSpecialWords[i]);
  const auto vocabulary = Vocabulary::from_words(pieces);
  EXPECT_EQ(vocabulary.size(), static_cast<std::int64_t>(pieces.size()));
}

// A text of more characters than --vocab-size holds pieces for: SentencePiece's advice named
// its own flag (--character_coverage); the refusal names ours and the size that would do.
TEST(SubwordModel, MoreCharactersThanPiecesNamesTheVocabSizeNeeded) {
  DLS_SKIP_WITHOUT_SENTENCEPIECE();
  std::vector<std::vector<std::string>> sentences;
  for (int c = 0; c < 60; ++c) sentences.push_back({std::string(1, static_cast<char>('!' + c)) + "x"});
  SubwordOptions options = tiny(SubwordKind::kUnigram);
  options.vocab_size = 20;
  try {
    SubwordModel::train(sentences, options);
    ADD_FAILURE() << "trained";
  } catch (const std::runtime_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("more than --vocab-size 20 holds (every character is a piece): give --vocab-size "),
              std::string::npos)
        << what;
    EXPECT_EQ(what.find("character_coverage"), std::string::npos) << what;
  }
}

TEST(SubwordModel, WordsRoundTripThroughPiecesForBothKinds) {
  DLS_SKIP_WITHOUT_SENTENCEPIECE();
  const auto sentences = sample_spanish();
  for (const auto kind : {SubwordKind::kUnigram, SubwordKind::kBpe}) {
    const auto model = SubwordModel::train(sentences, tiny(kind));
    std::size_t words = 0, pieces = 0;
    for (const auto& sentence : sentences) {
      const auto encoded = model.encode(sentence);
      EXPECT_EQ(model.decode(encoded), sentence) << to_string(kind);
      words += sentence.size();
      pieces += encoded.size();
    }
    // 100 pieces cannot hold every word of the corpus: words are split.
    EXPECT_GT(pieces, words) << to_string(kind);
  }
}

TEST(SubwordModel, AnUnseenCharacterIsUnkAndDecodesToTheUnkWord) {
  DLS_SKIP_WITHOUT_SENTENCEPIECE();
  const auto model = SubwordModel::train(sample_spanish(), tiny(SubwordKind::kUnigram));
  const auto vocabulary = Vocabulary::from_words(model.pieces());
  const std::string snowman = "\xe2\x98\x83";  // not in the corpus
  const auto pieces = model.encode({"como", snowman});
  EXPECT_EQ(model.decode(pieces), (std::vector<std::string>{"como", snowman}));
  // Its piece is outside the vocabulary: <unk> in the tensors, the word "<unk>" when decoded.
  std::vector<std::string> unknown;
  const auto ids = vocabulary.encode(pieces, 20, Vocabulary::Padding::kPad, &unknown);
  ASSERT_EQ(unknown.size(), 1u);  // "☃" or "▁☃"
  EXPECT_EQ(unknown[0].substr(unknown[0].size() - snowman.size()), snowman);
  EXPECT_EQ(model.decode(vocabulary.decode(ids)), (std::vector<std::string>{"como", "<unk>"}));
}

TEST(SubwordModel, TheSerializedModelGivesTheSamePiecesAndTrainingIsRepeatable) {
  DLS_SKIP_WITHOUT_SENTENCEPIECE();
  const auto sentences = sample_spanish();
  const auto model = SubwordModel::train(sentences, tiny(SubwordKind::kBpe));
  const auto again = SubwordModel::from_proto(model.serialized_proto());
  EXPECT_EQ(again.serialized_proto(), model.serialized_proto());
  EXPECT_EQ(again.pieces(), model.pieces());
  for (const auto& sentence : sentences) EXPECT_EQ(again.encode(sentence), model.encode(sentence));
  EXPECT_EQ(SubwordModel::train(sentences, tiny(SubwordKind::kBpe)).serialized_proto(), model.serialized_proto());
  EXPECT_THROW(SubwordModel::from_proto("not a model"), std::runtime_error);
}

TEST(SubwordModel, TokenizedPairsAndTheirLongestSide) {
  DLS_SKIP_WITHOUT_SENTENCEPIECE();
  const std::vector<SentencePair> pairs{{{"i", "am", "here"}, {"estoy", "aquí"}}, {{"go"}, {"ve"}}};
  EXPECT_EQ(longest_side(pairs), 3u);
  const auto same = tokenize_pairs(pairs, nullptr, nullptr);
  EXPECT_EQ(same[0].english, pairs[0].english);
  const auto model = SubwordModel::train(sample_spanish(), tiny(SubwordKind::kUnigram));
  const auto pieces = tokenize_pairs(pairs, nullptr, &model);
  EXPECT_EQ(pieces[1].english, pairs[1].english);
  EXPECT_EQ(pieces[0].spanish, model.encode(pairs[0].spanish));
}

// The estimate grows with the text and far more with its longest sentence (the encoding
// lattice): a 50 MB "word" needs about 10 GiB, more than the word tokenizer's 0.6 GB.
TEST(SubwordMemory, EstimateGrowsWithTheTextAndItsLongestSentence) {
  const std::vector<std::vector<std::string>> short_text(1000, {"la", "casa", "es", "roja"});  // 16 bytes each
  EXPECT_DOUBLE_EQ(subword_training_bytes(short_text), 40.0 * 16000 + 200.0 * 16);
  auto with_word = short_text;
  with_word.push_back({std::string(50 << 20, 'a')});
  EXPECT_GT(subword_training_bytes(with_word), 10.0 * (1 << 30));
  EXPECT_LT(subword_training_bytes(with_word), 20.0 * (1 << 30)) << "within a sane factor";
}

}  // namespace
}  // namespace dls::data

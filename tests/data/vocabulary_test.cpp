#include "dls/data/vocabulary.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace dls::data {
namespace {

using Words = std::vector<std::string>;

Vocabulary small_vocabulary() {
  return Vocabulary::build({{"te", "quiero"}, {"te", "amo"}, {"ñu"}, {"árbol", "zorro"}});
}

TEST(Vocabulary, SpecialsFirstThenSortedWords) {
  const Vocabulary v = small_vocabulary();
  // UTF-8 byte order: ASCII words first, then á (C3 A1) before ñ (C3 B1).
  EXPECT_EQ(v.words(), (Words{"SOS", "EOS", "<pad>", "<unk>", "amo", "quiero", "te", "zorro", "árbol", "ñu"}));
  EXPECT_EQ(v.size(), 10);
  EXPECT_EQ(v.index_of("SOS"), Vocabulary::kSos);
  EXPECT_EQ(v.index_of("EOS"), Vocabulary::kEos);
  EXPECT_EQ(v.index_of("<pad>"), Vocabulary::kPad);
  EXPECT_EQ(v.index_of("<unk>"), Vocabulary::kUnk);
  EXPECT_EQ(v.index_of("te"), 6);
  EXPECT_EQ(v.index_of("nada"), Vocabulary::kUnk);
  EXPECT_TRUE(v.contains("ñu"));
  EXPECT_FALSE(v.contains("nada"));
  EXPECT_EQ(v.word_at(8), "árbol");
  EXPECT_THROW(v.word_at(10), std::out_of_range);
  EXPECT_THROW(v.word_at(-1), std::out_of_range);
}

// --min-count and --max-vocab: the words seen often enough, of them the most frequent (ties
// to the first in byte order), laid out as ever (sorted after the specials); the rest <unk>.
TEST(Vocabulary, LimitsKeepTheWordsSeenOftenEnoughAndTheMostFrequent) {
  const std::vector<Words> sentences{{"te", "quiero"}, {"te", "amo"}, {"zorro", "te"}, {"amo", "árbol", "zorro"}};
  // te 3, amo 2, zorro 2, quiero 1, árbol 1
  EXPECT_EQ(Vocabulary::build(sentences).size(), Vocabulary::kSpecialCount + 5) << "no limits: every word";
  const auto twice = Vocabulary::build(sentences, {2, 0});
  EXPECT_EQ(twice.words(), (Words{"SOS", "EOS", "<pad>", "<unk>", "amo", "te", "zorro"}));
  EXPECT_EQ(twice.index_of("quiero"), Vocabulary::kUnk);
  const auto two = Vocabulary::build(sentences, {1, 2});
  EXPECT_EQ(two.words(), (Words{"SOS", "EOS", "<pad>", "<unk>", "amo", "te"})) << "amo before zorro: byte order";
  const auto four = Vocabulary::build(sentences, {1, 4});
  EXPECT_EQ(four.words(), (Words{"SOS", "EOS", "<pad>", "<unk>", "amo", "quiero", "te", "zorro"}));
  EXPECT_EQ(Vocabulary::build(sentences, {1, 100}).words(), Vocabulary::build(sentences).words());
  EXPECT_EQ(Vocabulary::build(sentences, {4, 0}).size(), Vocabulary::kSpecialCount) << "only the specials";
  EXPECT_FALSE((Vocabulary::Limits{}.any()));
  EXPECT_TRUE((Vocabulary::Limits{2, 0}.any()));
}

TEST(Vocabulary, EncodeAndDecodeRoundTrip) {
  const Vocabulary v = small_vocabulary();
  const Words sentence = {"te", "quiero"};
  const auto ids = v.encode(sentence, 6);
  EXPECT_EQ(ids, (std::vector<std::int64_t>{0, 6, 5, 1, 2, 2}));
  EXPECT_EQ(v.decode(ids), sentence);
  EXPECT_EQ(v.encode(sentence, 4), (std::vector<std::int64_t>{0, 6, 5, 1}));  // exactly full
  EXPECT_EQ(v.decode({0, 6, 2, 5, 1, 7}), sentence);                          // skips pad, stops at EOS
  EXPECT_TRUE(v.decode({1, 6}).empty());
  EXPECT_THROW(v.decode({0, 99}), std::out_of_range);
}

TEST(Vocabulary, EosPaddingAsInDlstudio) {
  const Vocabulary v = small_vocabulary();
  const auto ids = v.encode({"te", "amo"}, 6, Vocabulary::Padding::kEos);
  EXPECT_EQ(ids, (std::vector<std::int64_t>{0, 6, 4, 1, 1, 1}));
  EXPECT_EQ(v.decode(ids), (Words{"te", "amo"}));
}

TEST(Vocabulary, UnknownWordsAreMarkedAndReported) {
  const Vocabulary v = small_vocabulary();
  Words unknown;
  const auto ids = v.encode({"te", "odio", "mucho"}, 6, Vocabulary::Padding::kPad, &unknown);
  EXPECT_EQ(ids, (std::vector<std::int64_t>{0, 6, 3, 3, 1, 2}));
  EXPECT_EQ(unknown, (Words{"odio", "mucho"}));
  EXPECT_EQ(v.decode(ids), (Words{"te", "<unk>", "<unk>"}));
}

TEST(Vocabulary, SentenceLongerThanMaxLenIsAnError) {
  const Vocabulary v = small_vocabulary();
  EXPECT_THROW(v.encode({"te", "amo", "te"}, 4), std::invalid_argument);
  EXPECT_THROW(v.encode({}, 1), std::invalid_argument);
  EXPECT_EQ(v.encode({}, 2), (std::vector<std::int64_t>{0, 1}));
}

TEST(Vocabulary, FromWordsRebuildsAndValidates) {
  const Vocabulary v = small_vocabulary();
  const Vocabulary again = Vocabulary::from_words(v.words());
  EXPECT_EQ(again.words(), v.words());
  EXPECT_EQ(again.index_of("zorro"), v.index_of("zorro"));

  const auto error = [](Words words) {
    try {
      Vocabulary::from_words(std::move(words));
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_EQ(error({"SOS", "EOS", "<unk>", "<pad>", "a"}), "vocabulary: index 2 must be '<pad>', found '<unk>'");
  EXPECT_EQ(error({"SOS", "EOS"}), "vocabulary: index 2 must be '<pad>', vocabulary too short");
  EXPECT_EQ(error({"SOS", "EOS", "<pad>", "<unk>", "a", "b", "a"}), "vocabulary: word 'a' at index 6 repeats index 4");
  EXPECT_EQ(error({"SOS", "EOS", "<pad>", "<unk>", ""}), "vocabulary: empty word at index 4");
  // A special word inside the sentences is a duplicate too.
  EXPECT_THROW(Vocabulary::build({{"a", "EOS"}}), std::runtime_error);
}

}  // namespace
}  // namespace dls::data

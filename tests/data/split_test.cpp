#include "dls/data/split.h"

#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "dls/data/normalize.h"
#include "support/test_paths.h"

namespace dls::data {
namespace {

// n pairs; pair i has the English sentence "s<i / group_size>", so English sentences come
// in groups of group_size consecutive pairs.
std::vector<SentencePair> corpus(std::size_t n, std::size_t group_size) {
  std::vector<SentencePair> pairs;
  for (std::size_t i = 0; i < n; ++i) {
    pairs.push_back({{"s" + std::to_string(i / group_size)}, {"t" + std::to_string(i)}});
  }
  return pairs;
}

TEST(Split, MatchesTheIndependentReference) {
  // split_reference.tsv comes from a Python implementation of the same algorithm
  // (tests/fixtures/split/make_split_reference.py), so this pins the split across
  // compilers and standard libraries.
  std::ifstream in(dls::testing::fixtures_dir() + "/split/split_reference.tsv");
  int rows = 0;
  for (std::string line; std::getline(in, line); ++rows) {
    std::stringstream fields(line);
    std::uint64_t seed = 0;
    std::size_t groups = 0, validation = 0;
    fields >> seed >> groups >> validation;
    std::vector<std::size_t> expected;
    for (std::size_t i; fields >> i;) expected.push_back(i);
    const CorpusSplit split = split_by_english(corpus(groups, 1), seed, validation);
    EXPECT_EQ(split.validation, expected) << line;
  }
  EXPECT_EQ(rows, 4);
}

TEST(Split, SameEnglishSentenceNeverOnBothSides) {
  const auto pairs = corpus(1000, 3);  // groups of 3, last group has 1 pair
  const CorpusSplit split = split_by_english(pairs, kDefaultSplitSeed, 100);
  std::set<std::string> train_english;
  for (const std::size_t i : split.training) train_english.insert(join_words(pairs[i].english));
  for (const std::size_t i : split.validation) {
    EXPECT_EQ(train_english.count(join_words(pairs[i].english)), 0u) << i;
  }
  // Whole groups until at least 100 pairs: 100 <= size < 100 + largest group.
  EXPECT_GE(split.validation.size(), 100u);
  EXPECT_LT(split.validation.size(), 103u);
  EXPECT_EQ(split.training.size() + split.validation.size(), pairs.size());
  EXPECT_TRUE(std::is_sorted(split.training.begin(), split.training.end()));
  EXPECT_TRUE(std::is_sorted(split.validation.begin(), split.validation.end()));
  std::set<std::size_t> all(split.training.begin(), split.training.end());
  all.insert(split.validation.begin(), split.validation.end());
  EXPECT_EQ(all.size(), pairs.size());
}

TEST(Split, DeterministicPerSeed) {
  const auto pairs = corpus(500, 2);
  const CorpusSplit a = split_by_english(pairs, 42, 50);
  const CorpusSplit b = split_by_english(pairs, 42, 50);
  const CorpusSplit c = split_by_english(pairs, 43, 50);
  EXPECT_EQ(a.validation, b.validation);
  EXPECT_EQ(a.training, b.training);
  EXPECT_NE(a.validation, c.validation);
  EXPECT_EQ(a.definition.seed, 42u);
  EXPECT_EQ(a.definition.validation_pairs, 50u);
  EXPECT_EQ(a.definition.corpus_pairs, 500u);
  EXPECT_EQ(a.definition.corpus_fingerprint, corpus_fingerprint(pairs));
}

TEST(Split, SizeLimits) {
  const auto pairs = corpus(10, 1);
  EXPECT_TRUE(split_by_english(pairs, 1, 0).validation.empty());
  EXPECT_EQ(split_by_english(pairs, 1, 9).training.size(), 1u);
  EXPECT_THROW(split_by_english(pairs, 1, 10), std::invalid_argument);
  // 9 pairs requested from 2 groups of 5: whole groups would take everything.
  EXPECT_THROW(split_by_english(corpus(10, 5), 1, 6), std::invalid_argument);
  // 50 copies of one sentence: the message says why one held out takes all.
  try {
    split_by_english(corpus(50, 50), 1, 1);
    ADD_FAILURE() << "split";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(),
                 "split: 1 held out of 50 leave nothing to train on: copies of a sentence are held out together, and "
                 "the corpus has only 1 different ones");
  }
}

// The held-out count: a share of the corpus, capped; fraction 0 asks for the cap itself.
TEST(Split, ValidationSizeIsAFractionWithACap) {
  EXPECT_EQ(validation_size(1264, 0.1, 2000), 126u);
  EXPECT_EQ(validation_size(88594, 0.1, 2000), 2000u) << "the real corpus keeps its 2,000 pairs";
  EXPECT_EQ(validation_size(88594, 0.0, 2000), 2000u);
  EXPECT_EQ(validation_size(1264, 0.0, 100), 100u);
  EXPECT_EQ(validation_size(3, 0.1, 2000), 1u) << "at least one pair of a corpus of two or more";
  EXPECT_EQ(validation_size(1, 0.1, 2000), 0u);
  EXPECT_EQ(validation_size(1000, 0.5, 0), 0u) << "a cap of 0: no validation split";
}

TEST(Split, FingerprintIsFnv1aOfTheNormalisedPairs) {
  // FNV-1a 64 of "" is the offset basis; of "a\tb\n" computed by hand with the same
  // constants (offset 0xcbf29ce484222325, prime 0x100000001b3).
  EXPECT_EQ(corpus_fingerprint({}), 0xcbf29ce484222325ULL);
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (const char c : std::string("a b\tc\n")) h = (h ^ static_cast<unsigned char>(c)) * 0x100000001b3ULL;
  EXPECT_EQ(corpus_fingerprint({{{"a", "b"}, {"c"}}}), h);
  EXPECT_NE(corpus_fingerprint({{{"a", "b"}, {"c"}}}), corpus_fingerprint({{{"a"}, {"b", "c"}}}));
}

TEST(Split, DefinitionIsVerifiedAgainstTheCorpus) {
  const auto pairs = corpus(300, 2);
  const CorpusSplit split = split_by_english(pairs, 5, 30);
  const CorpusSplit again = apply_split_definition(split.definition, pairs, "spa.txt");
  EXPECT_EQ(again.validation, split.validation);

  auto changed = pairs;
  changed[7].spanish = {"otra"};
  try {
    verify_split_definition(split.definition, changed, "spa.txt");
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    const std::string message = e.what();
    EXPECT_EQ(message.rfind("spa.txt: not the corpus the split was made from: expected 300 pairs", 0), 0u) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos);
  }
  changed = pairs;
  changed.pop_back();
  EXPECT_THROW(apply_split_definition(split.definition, changed, "spa.txt"), std::runtime_error);
}

}  // namespace
}  // namespace dls::data

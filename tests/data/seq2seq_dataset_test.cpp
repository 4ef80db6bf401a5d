// The seq2seq dataset: a fresh build and a build from what a checkpoint stores hold out the
// same pairs, whatever the settings say of the split.
#include "dls/data/seq2seq_dataset.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>

#include <torch/torch.h>

#include "support/test_paths.h"

namespace dls::data {
namespace {

Seq2SeqDataSettings sample_seq2seq_settings() {
  Seq2SeqDataSettings settings;
  settings.data_path = testing::sample_corpus();
  settings.split_seed = 99;
  settings.validation_pairs = 120;
  return settings;
}

Seq2SeqStoredData seq2seq_stored_from(const Seq2SeqDataset& d) {
  return {d.split.definition, d.english, d.spanish, std::nullopt, std::nullopt};
}

TEST(Seq2SeqDataset, StoredDataRedoesTheSplitAndKeepsTheVocabularies) {
  const auto settings = sample_seq2seq_settings();
  const auto fresh = prepare_seq2seq_dataset(settings, Vocabulary::Padding::kPad, nullptr);
  ASSERT_GE(fresh.split.validation.size(), 120u);
  EXPECT_EQ(fresh.split.definition.seed, 99u);
  const auto stored = seq2seq_stored_from(fresh);
  auto other = settings;
  other.split_seed = 1;  // the stored split wins: a resumed run or an evaluation redoes it
  other.validation_pairs = 10;
  const auto again = prepare_seq2seq_dataset(other, Vocabulary::Padding::kPad, &stored);
  EXPECT_EQ(again.split.validation, fresh.split.validation);
  EXPECT_EQ(again.split.training, fresh.split.training);
  EXPECT_EQ(again.english.words(), fresh.english.words());
  EXPECT_EQ(again.max_len, fresh.max_len);
  EXPECT_TRUE(torch::equal(again.validation.src, fresh.validation.src));
  EXPECT_TRUE(torch::equal(again.validation.tgt, fresh.validation.tgt));
  EXPECT_TRUE(torch::equal(again.train.tgt, fresh.train.tgt));
  EXPECT_NE(prepare_seq2seq_dataset(other, Vocabulary::Padding::kPad, nullptr).split.validation,
            fresh.split.validation);
}

// The defaults hold out a tenth of the 1,264-pair sample, not the 2,000 pairs (the cap) that
// it does not have; asking for exactly the cap (--validation-fraction 0) is refused.
TEST(Seq2SeqDataset, TheDefaultsHoldOutATenthOfASmallCorpus) {
  Seq2SeqDataSettings settings;
  settings.data_path = testing::sample_corpus();
  const auto data = prepare_seq2seq_dataset(settings, Vocabulary::Padding::kPad, nullptr);
  const auto pairs = data.corpus.pairs.size();
  EXPECT_EQ(data.split.definition.validation_pairs, validation_size(pairs, 0.1, 2000));
  EXPECT_GE(data.split.validation.size(), pairs / 10);
  EXPECT_LT(data.split.validation.size(), pairs / 10 + 10) << "whole groups of one source sentence";
  settings.validation_fraction = 0;
  EXPECT_THROW(prepare_seq2seq_dataset(settings, Vocabulary::Padding::kPad, nullptr), std::invalid_argument);
}

// --min-count and --max-vocab at word level: every kept word is seen often enough in the
// training split (not the validation split), the rest reads as <unk>, and the start-up line
// says what was kept and the <unk> rates it makes; a resume's stored vocabularies stand.
TEST(Seq2SeqDataset, MinCountAndMaxVocabLeaveTheRareTrainingWordsAsUnk) {
  auto settings = sample_seq2seq_settings();
  const auto all = prepare_seq2seq_dataset(settings, Vocabulary::Padding::kPad, nullptr);
  EXPECT_TRUE(all.limits_summary.empty());
  settings.min_count = 10;
  const auto frequent = prepare_seq2seq_dataset(settings, Vocabulary::Padding::kPad, nullptr);
  std::map<std::string, int> seen;
  for (const auto i : frequent.split.training) {
    for (const auto& word : frequent.corpus.pairs[i].english) ++seen[word];
  }
  std::size_t kept = 0;
  for (const auto& [word, count] : seen) {
    EXPECT_EQ(frequent.english.contains(word), count >= 10) << word << " seen " << count;
    kept += count >= 10 ? 1 : 0;
  }
  ASSERT_LT(kept, seen.size()) << "the sample has words seen fewer than 10 times";
  EXPECT_EQ(frequent.english.size(), static_cast<std::int64_t>(kept) + Vocabulary::kSpecialCount);
  EXPECT_LT(frequent.spanish.size(), all.spanish.size());
  EXPECT_GT((frequent.train.src == Vocabulary::kUnk).sum().item<std::int64_t>(), 0);
  EXPECT_EQ((all.train.src == Vocabulary::kUnk).sum().item<std::int64_t>(), 0);
  const auto line = "--min-count 10: English keeps " + std::to_string(kept) + " of the training split's " +
                    std::to_string(seen.size()) + " words, Spanish ";
  EXPECT_EQ(frequent.limits_summary.substr(0, line.size()), line) << frequent.limits_summary;
  const auto lines = describe_seq2seq_dataset(frequent, settings.max_words);
  EXPECT_NE(std::find(lines.begin(), lines.end(), frequent.limits_summary), lines.end());

  settings.min_count = 1;
  settings.max_vocab = 30;
  ASSERT_GT(all.english.size(), 30 + Vocabulary::kSpecialCount);
  const auto thirty = prepare_seq2seq_dataset(settings, Vocabulary::Padding::kPad, nullptr);
  EXPECT_EQ(thirty.english.size(), 30 + Vocabulary::kSpecialCount);
  EXPECT_EQ(thirty.spanish.size(), 30 + Vocabulary::kSpecialCount);
  EXPECT_NE(thirty.limits_summary.find("--max-vocab 30: English keeps 30 of"), std::string::npos)
      << thirty.limits_summary;
  const auto stored = seq2seq_stored_from(thirty);
  settings.max_vocab = 0;  // a resume reads the stored vocabularies, whatever the settings say
  EXPECT_EQ(prepare_seq2seq_dataset(settings, Vocabulary::Padding::kPad, &stored).english.words(),
            thirty.english.words());
}

TEST(Seq2SeqDataset, AnotherCorpusThanTheStoredSplitsIsRefused) {
  const auto settings = sample_seq2seq_settings();
  const auto fresh = prepare_seq2seq_dataset(settings, Vocabulary::Padding::kPad, nullptr);
  auto stored = seq2seq_stored_from(fresh);
  stored.split.corpus_fingerprint += 1;
  EXPECT_THROW(prepare_seq2seq_dataset(settings, Vocabulary::Padding::kPad, &stored), std::runtime_error);
}

}  // namespace
}  // namespace dls::data

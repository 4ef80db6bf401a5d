// The seq2seq dataset: a fresh build and a build from what a checkpoint stores hold out the
// same pairs, whatever the settings say of the split.
#include "dls/data/seq2seq_dataset.h"

#include <gtest/gtest.h>

#include <stdexcept>

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

TEST(Seq2SeqDataset, AnotherCorpusThanTheStoredSplitsIsRefused) {
  const auto settings = sample_seq2seq_settings();
  const auto fresh = prepare_seq2seq_dataset(settings, Vocabulary::Padding::kPad, nullptr);
  auto stored = seq2seq_stored_from(fresh);
  stored.split.corpus_fingerprint += 1;
  EXPECT_THROW(prepare_seq2seq_dataset(settings, Vocabulary::Padding::kPad, &stored), std::runtime_error);
}

}  // namespace
}  // namespace dls::data

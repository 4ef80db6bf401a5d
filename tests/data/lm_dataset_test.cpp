// The language-model dataset: a fresh build and a build from what a checkpoint stores hold
// out the same sentences, whatever the settings say of the split.
#include "dls/data/lm_dataset.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include <torch/torch.h>

#include "support/test_paths.h"

namespace dls::data {
namespace {

LmDataSettings sample_lm_settings() {
  LmDataSettings settings;
  settings.path = testing::sample_corpus();
  settings.split_seed = 99;
  settings.validation_sentences = 120;
  return settings;
}

TEST(LmDataset, StoredDataRedoesTheSplitAndKeepsTheVocabulary) {
  const auto settings = sample_lm_settings();
  const auto fresh = prepare_lm_dataset(settings, nullptr);
  ASSERT_GE(fresh.split.validation.size(), 120u);
  const LmStoredData stored{fresh.split.definition, fresh.tokenizer, fresh.vocabulary, fresh.max_len};
  auto other = settings;
  other.split_seed = 1;  // the stored split wins: a resumed run or an evaluation redoes it
  other.validation_sentences = 10;
  const auto again = prepare_lm_dataset(other, &stored);
  EXPECT_EQ(again.split.validation, fresh.split.validation);
  EXPECT_EQ(again.vocabulary.words(), fresh.vocabulary.words());
  EXPECT_TRUE(torch::equal(again.validation.rows, fresh.validation.rows));
  EXPECT_TRUE(torch::equal(again.train.rows, fresh.train.rows));
  EXPECT_NE(prepare_lm_dataset(other, nullptr).split.validation, fresh.split.validation);
}

// --max-vocab on sentences: the most frequent training words, the rest <unk>, said at start-up.
TEST(LmDataset, MaxVocabKeepsTheMostFrequentTrainingWords) {
  auto settings = sample_lm_settings();
  settings.max_vocab = 20;
  const auto data = prepare_lm_dataset(settings, nullptr);
  EXPECT_EQ(data.vocabulary.size(), 20 + Vocabulary::kSpecialCount);
  EXPECT_GT(data.train.unknown, 0);
  const auto lines = describe_lm_dataset(data, settings);
  EXPECT_EQ(lines.back().substr(0, 64), "--max-vocab 20: the vocabulary keeps 20 words; <unk> in the trai");
}

TEST(LmDataset, AnotherCorpusThanTheStoredSplitsIsRefused) {
  const auto settings = sample_lm_settings();
  const auto fresh = prepare_lm_dataset(settings, nullptr);
  LmStoredData stored{fresh.split.definition, fresh.tokenizer, fresh.vocabulary, fresh.max_len};
  stored.split.corpus_fingerprint += 1;
  EXPECT_THROW(prepare_lm_dataset(settings, &stored), std::runtime_error);
}

// Holding out every sentence is refused naming lm_train's flag and the corpus's size.
TEST(LmDataset, HoldingOutEverySentenceNamesTheFlag) {
  auto settings = sample_lm_settings();
  settings.validation_sentences = 100000;
  try {
    prepare_lm_dataset(settings, nullptr);
    FAIL() << "held out the whole corpus";
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find(": --validation-sentences 100000 leaves no training sentence of its "),
              std::string::npos)
        << error.what();
  }
}

// The default 1,000 validation sentences of the sample corpus (1,264) leave it 263 to train
// on, without a word: a warning says so and what to give.
TEST(LmDataset, HoldingOutMostOfASmallCorpusIsAWarning) {
  auto settings = sample_lm_settings();
  EXPECT_EQ(lm_dataset_warning(prepare_lm_dataset(settings, nullptr)), "") << "120 of them";
  settings.validation_sentences = 1000;
  const auto warning = lm_dataset_warning(prepare_lm_dataset(settings, nullptr));
  EXPECT_NE(warning.find(" sentences (79 %) are held out for validation"), std::string::npos) << warning;
  EXPECT_NE(warning.find("--validation-sentences 126"), std::string::npos) << warning;
}

}  // namespace
}  // namespace dls::data

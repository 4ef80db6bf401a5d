// Language-model checkpoints hold what evaluation needs to rebuild the run's data: the
// dataset an evaluation builds from one holds out exactly the sentences training validated on.
#include "dls/checkpoint/lm_checkpoint.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include <torch/torch.h>

#include "dls/checkpoint/checkpoint_files.h"
#include "dls/data/vocabulary.h"
#include "dls/eval/lm_evaluation.h"
#include "dls/train/tasks/lm_presets.h"
#include "dls/train/tasks/lm_trainer.h"
#include "support/test_paths.h"
#include "support/older_checkpoints.h"
#include "util/temp_files.h"

namespace dls::checkpoint {
namespace {

// With a split seed and a validation size other than the defaults: the evaluation's
// dataset has training's validation sentences (ids and rows), and the model of the
// checkpoint scores on them the NLL training recorded.
TEST(LmCheckpoint, EvaluationDatasetHoldsOutTrainingsValidationSentences) {
  const auto dir = test::fresh_temp_dir("lm_checkpoint_eval_split");
  auto settings = train::lm_preset("tiny");
  settings.data.path = testing::sample_corpus();
  settings.data.split_seed = 4242;
  settings.data.validation_sentences = 150;
  settings.epochs = 1;
  settings.run.run_dir = dir.string();
  const auto trained = train::train_lm(settings);
  ASSERT_EQ(trained.checkpoints.size(), 1u);

  const CheckpointReader reader(trained.checkpoints.back(), kLmCheckpointKind);
  const auto contents = read_lm_contents(reader);
  EXPECT_EQ(contents.split.seed, 4242u);
  EXPECT_EQ(contents.split.validation_pairs, 150u);
  const auto evaluated = lm_dataset(contents.settings.data, &contents);
  // What training built: a fresh dataset of the same settings.
  const auto fresh = lm_dataset(settings.data, nullptr);
  ASSERT_GE(evaluated.split.validation.size(), 150u);
  EXPECT_EQ(evaluated.split.validation, fresh.split.validation);
  EXPECT_EQ(evaluated.split.training, fresh.split.training);
  EXPECT_TRUE(torch::equal(evaluated.validation.rows, fresh.validation.rows));
  EXPECT_EQ(evaluated.vocabulary.words(), fresh.vocabulary.words());
  auto default_seed = settings.data;
  default_seed.split_seed = data::LmDataSettings{}.split_seed;
  EXPECT_NE(lm_dataset(default_seed, nullptr).split.validation, evaluated.split.validation);

  auto model = load_lm_model(reader, contents.settings);
  const auto likelihood = eval::token_likelihood(model, evaluated.validation.rows, data::Vocabulary::kPad);
  ASSERT_GE(contents.val_nll, 0.0);
  EXPECT_NEAR(likelihood.mean_nll(), contents.val_nll, 1e-5);
}

// A checkpoint written before RunState (tests/fixtures/lm_checkpoint/older_mid_epoch.pt:
// 61b3874's lm_train stopped at step 5 of its first epoch; its state in a language model's own
// keys -- epoch_steps, epoch_sentences, sentences_per_s) resumes where its run stood: two more
// steps end on the state this build's own run saves at step 7.
TEST(LmCheckpoint, ACheckpointWrittenBeforeRunStateResumesWhereItStood) {
  const auto fixture = std::filesystem::path(testing::fixtures_dir()) / "lm_checkpoint" / "older_mid_epoch.pt";
  const CheckpointReader older_reader(fixture.string(), kLmCheckpointKind);
  EXPECT_TRUE(older_reader.settings().has("state.epoch_sentences")) << "the older keys";
  const auto older = read_lm_contents(older_reader);
  EXPECT_EQ(older.state.step_in_epoch, 5);
  EXPECT_EQ(older.state.epoch_loss_weight, 5.0);  // a language model's mean is over steps
  EXPECT_GT(older.state.epoch_examples, 0);
  EXPECT_EQ(older.val_nll, -1.0);  // not validated yet

  // The fixture's run, as its command line in tests/fixtures/lm_checkpoint/README.md.
  auto settings = train::lm_preset("tiny");
  settings.data.path = testing::sample_corpus();
  settings.run.run_dir = test::fresh_temp_dir("lm_older_straight").string();
  settings.run.max_iters = 7;
  const auto run = test::expect_resume_to_stand_where_straight_stands(settings, fixture, "lm_older_resumed",
                                                                      [](const auto& s) { return train::train_lm(s); });
  EXPECT_EQ(run.resumed.completed_epochs, 0);
  EXPECT_EQ(run.resumed.step_in_epoch, 7);
  EXPECT_EQ(run.resumed.epoch_loss_weight, 7.0);
  EXPECT_TRUE(std::isfinite(run.resumed.epoch_loss_sum));
}

}  // namespace
}  // namespace dls::checkpoint

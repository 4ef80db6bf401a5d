// The run's state: one struct the loop saves under "state." for every kind of checkpoint, and
// what files from before it (a language model's and a ViT's own keys) read into it.
#include "dls/checkpoint/run_state.h"

#include <gtest/gtest.h>

#include "dls/checkpoint/checkpoint.h"
#include "util/temp_files.h"

namespace dls::checkpoint {
namespace run_state_test {

RunState some_state() {
  RunState state;
  state.completed_epochs = 2;
  state.step_in_epoch = 3;
  state.steps_per_epoch = 12;
  state.global_step = 27;
  state.wall_s = 41.25;
  state.train_loss = 1.875;
  state.examples_per_s = 512.5;
  state.epoch_loss_sum = 5.625;
  state.epoch_loss_weight = 96;
  state.epoch_examples = 96;
  state.epoch_correct = 40;
  return state;
}

void expect_same(const RunState& read, const RunState& written) {
  EXPECT_EQ(read.completed_epochs, written.completed_epochs);
  EXPECT_EQ(read.step_in_epoch, written.step_in_epoch);
  EXPECT_EQ(read.steps_per_epoch, written.steps_per_epoch);
  EXPECT_EQ(read.global_step, written.global_step);
  EXPECT_EQ(read.wall_s, written.wall_s);
  EXPECT_EQ(read.train_loss, written.train_loss);
  EXPECT_EQ(read.examples_per_s, written.examples_per_s);
  EXPECT_EQ(read.epoch_loss_sum, written.epoch_loss_sum);
  EXPECT_EQ(read.epoch_loss_weight, written.epoch_loss_weight);
  EXPECT_EQ(read.epoch_examples, written.epoch_examples);
  EXPECT_EQ(read.epoch_correct, written.epoch_correct);
}

TEST(RunState, ComesBackFromItsCheckpointAsWritten) {
  const auto path = (test::fresh_temp_dir("run_state") / "state.pt").string();
  CheckpointWriter writer("toy");
  util::KeyValues task;
  task.set("evaluation.val_bleu", 0.5);
  writer.add_settings(task);
  describe_run_state(writer, some_state());
  writer.save(path);
  const CheckpointReader reader(path, "toy");
  expect_same(RunState::from_settings(reader.settings()), some_state());
  EXPECT_EQ(reader.settings().get("state.completed_epochs"), "2");
  EXPECT_EQ(latest_evaluation(reader.settings(), "val_bleu", "progress.val_bleu", -1), 0.5);
  EXPECT_EQ(latest_evaluation(reader.settings(), "val_loss", "progress.val_loss", -1), -1);
}

TEST(RunState, NamesTheEpochInProgress) {
  auto state = some_state();
  EXPECT_EQ(state.file_epoch(), 3);
  EXPECT_DOUBLE_EQ(state.epochs_done(), 2.25);
  state.step_in_epoch = 0;
  EXPECT_EQ(state.file_epoch(), 2);
  state.steps_per_epoch = 0;  // not known
  EXPECT_DOUBLE_EQ(state.epochs_done(), 2.0);
}

// The keys each kind shared before RunState, and those it had of its own.
util::KeyValues shared_keys() {
  util::KeyValues s;
  s.set("state.completed_epochs", 2);
  s.set("state.step_in_epoch", 3);
  s.set("state.steps_per_epoch", 12);
  s.set("state.global_step", 27);
  s.set("state.wall_s", 41.25);
  s.set("state.train_loss", 1.875);
  s.set("state.epoch_loss_sum", 5.625);
  return s;
}

TEST(RunState, ALanguageModelsOlderStateReadsIntoIt) {
  auto s = shared_keys();
  s.set("state.val_nll", 2.5);
  s.set("state.sentences_per_s", 512.5);
  s.set("state.epoch_steps", 3);  // its epoch's mean loss is over steps
  s.set("state.epoch_sentences", 96);
  auto expected = some_state();
  expected.epoch_loss_weight = 3;
  expected.epoch_correct = 0;
  expect_same(RunState::from_settings(s), expected);
  EXPECT_EQ(latest_evaluation(s, "val_nll", "state.val_nll", -1), 2.5);
}

TEST(RunState, AViTsOlderStateReadsIntoIt) {
  auto s = shared_keys();
  s.set("state.test_accuracy", 0.625);
  s.set("state.images_per_s", 512.5);
  s.set("state.epoch_correct", 40);
  s.set("state.epoch_seen", 96);  // its loss sum is over images
  expect_same(RunState::from_settings(s), some_state());
  EXPECT_EQ(latest_evaluation(s, "test_accuracy", "state.test_accuracy", -1), 0.625);
  EXPECT_EQ(latest_evaluation(s, "val_accuracy", "state.val_accuracy", -1), -1);  // before the validation split
}

TEST(RunState, ASeq2SeqProgressAtAnEpochsEndReadsIntoIt) {
  util::KeyValues s;
  s.set("progress.epoch", 4);  // 1-based: three epochs done, none of the fourth
  s.set("progress.step_in_epoch", 0);
  s.set("progress.global_step", 30);
  s.set("progress.val_loss", 1.5);
  s.set("progress.val_bleu", 0.25);
  s.set("progress.train_loss", 1.75);
  s.set("progress.wall_s", 9.5);
  const auto state = RunState::from_settings(s);
  EXPECT_EQ(state.completed_epochs, 3);
  EXPECT_EQ(state.file_epoch(), 3);
  EXPECT_EQ(state.global_step, 30);
  EXPECT_EQ(state.epoch_loss_sum, 0.0);
  EXPECT_EQ(state.epoch_examples, 0);  // nothing of an epoch in progress to count
}

}  // namespace run_state_test
}  // namespace dls::checkpoint

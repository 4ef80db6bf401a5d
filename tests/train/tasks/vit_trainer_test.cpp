#include "dls/train/tasks/vit_trainer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include <torch/torch.h>

#include "dls/checkpoint/checkpoint_files.h"
#include "dls/checkpoint/vit_checkpoint.h"
#include "dls/data/image_dataset.h"
#include "dls/train/run/run_directory.h"
#include "dls/train/tasks/vit_presets.h"
#include "dls/util/csv.h"
#include "dls/util/file_io.h"
#include "dls/util/key_values.h"
#include "support/vit_runs.h"
#include "util/temp_files.h"

namespace dls::train {
namespace {

namespace fs = std::filesystem;

using checkpoint::CheckpointReader;
using checkpoint::find_checkpoints;
using checkpoint::kViTCheckpointKind;
using checkpoint::load_vit_model;
using checkpoint::read_vit_contents;
using settings::ScheduleKind;

struct SingleThread {
  SingleThread() : saved(torch::get_num_threads()) { torch::set_num_threads(1); }
  ~SingleThread() { torch::set_num_threads(saved); }
  int saved;
};

visTransformer model_of(const std::string& checkpoint) {
  const CheckpointReader reader(checkpoint, kViTCheckpointKind);
  return load_vit_model(reader, read_vit_contents(reader).settings);
}

void expect_same_weights(const std::string& a, const std::string& b) {
  const auto pa = model_of(a)->named_parameters();
  const auto pb = model_of(b)->named_parameters();
  ASSERT_EQ(pa.size(), pb.size());
  for (const auto& item : pa) {
    EXPECT_TRUE(torch::equal(item.value(), pb[item.key()])) << item.key();
  }
}

// Each metrics.csv row cut to kind, epoch, step, loss, accuracy (the timing columns differ).
std::vector<std::string> loss_columns(const std::string& text) {
  std::vector<std::string> rows;
  std::size_t pos = 0;
  bool complete = true;
  while (pos < text.size()) {
    const auto fields = util::parse_csv_record(text, &pos, &complete);
    rows.push_back(fields.at(0) + "," + fields.at(1) + "," + fields.at(2) + "," + fields.at(3) + "," + fields.at(4));
  }
  return rows;
}

// metrics.csv has the test loss the epoch log line prints: the last epoch's is the result's.
void expect_test_loss_column(const fs::path& run_dir, const ViTTrainResult& result) {
  const std::string text = util::read_file((run_dir / "metrics.csv").string());
  std::size_t pos = 0;
  bool complete = true;
  const auto header = util::parse_csv_record(text, &pos, &complete);
  ASSERT_EQ(header.size(), 12u);
  EXPECT_EQ(header[9], "test_loss");
  EXPECT_EQ(header[10], "val_accuracy");
  EXPECT_EQ(header[11], "val_loss");
  std::vector<std::string> last_epoch;
  while (pos < text.size()) {
    auto fields = util::parse_csv_record(text, &pos, &complete);
    if (fields.at(0) == "epoch") last_epoch = std::move(fields);
  }
  ASSERT_EQ(last_epoch.size(), 12u);
  ASSERT_TRUE(std::isfinite(result.test_loss));
  EXPECT_NEAR(std::stod(last_epoch[9]), result.test_loss, 1e-5 * result.test_loss);
}

// Training 12 steps straight equals training 3 (stopping inside epoch 1), resuming to 8
// (stopping at the end of epoch 2) and resuming to the end: same weights, bit for bit.
TEST(ViTTrainer, ResumedRunEqualsStraightRun) {
  SingleThread single;
  const auto data = test::tiny_fashion_dir("vit_resume");
  const auto settings = test::tiny_vit_settings(data);

  const auto straight_dir = test::fresh_temp_dir("vit_resume_straight");
  const auto straight = test::train_vit_with(settings, test::tiny_vit_run(straight_dir));
  EXPECT_EQ(straight.iterations, 12);
  EXPECT_EQ(straight.epochs, 3);
  EXPECT_EQ(straight.stopped_by, "epochs");
  expect_test_loss_column(straight_dir, straight);

  const auto pieces_dir = test::fresh_temp_dir("vit_resume_pieces");
  auto control = test::tiny_vit_run(pieces_dir);
  control.max_iters = 3;
  const auto first = test::train_vit_with(settings, control);
  EXPECT_EQ(first.stopped_by, "max-iters");
  ASSERT_EQ(first.checkpoints.size(), 1u);
  EXPECT_EQ(fs::path(first.checkpoints[0]).filename(), "checkpoint_epoch_0001.pt");  // partial epoch 1
  control.resume = pieces_dir.string();
  control.max_iters = 8;
  const auto second = test::train_vit_with(settings, control);
  EXPECT_EQ(second.iterations, 8);
  EXPECT_EQ(second.epochs, 2);
  control.max_iters = 0;
  const auto third = test::train_vit_with(settings, control);
  EXPECT_EQ(third.iterations, 12);

  expect_same_weights((straight_dir / "checkpoints" / "checkpoint_epoch_0003.pt").string(),
                      (pieces_dir / "checkpoints" / "checkpoint_epoch_0003.pt").string());
  // Every step was logged once, in order, across the three invocations, with the losses
  // of the straight run.
  const auto pieces_rows = loss_columns(util::read_file((pieces_dir / "metrics.csv").string()));
  EXPECT_EQ(pieces_rows, loss_columns(util::read_file((straight_dir / "metrics.csv").string())));
  EXPECT_EQ(pieces_rows.size(), 1u + 12u + 3u);  // header, step rows, epoch rows
  EXPECT_TRUE(fs::exists(pieces_dir / "loss.png"));
  EXPECT_TRUE(fs::exists(pieces_dir / "accuracy.png"));
}

// best.pt is chosen by the images held out of the training set, never by the test images.
// The stand-in: test labels that contradict the training labels, so that the two losses
// disagree. best.pt's score is the lowest validation loss of the run and names its epoch;
// that epoch's test loss is another number.
TEST(ViTTrainer, BestCheckpointIsChosenByValidationNotTest) {
  SingleThread single;
  const auto data = test::tiny_fashion_dir("vit_best_by_validation");
  std::vector<int> contradicting;
  for (int i = 0; i < 20; ++i) contradicting.push_back((i % 10 + 5) % 10);
  test::write_bytes(data / "t10k-labels-idx1-ubyte", test::idx_labels(contradicting));
  auto settings = test::tiny_vit_settings(data);
  settings.selection.best_metric = "loss";
  const auto dir = test::fresh_temp_dir("vit_best_by_validation_run");
  const auto result = test::train_vit_with(settings, test::tiny_vit_run(dir));
  ASSERT_TRUE(std::isfinite(result.val_loss));
  EXPECT_NE(result.val_loss, result.test_loss);

  std::vector<double> val_losses, test_losses;  // by epoch, from 1
  const std::string text = util::read_file((dir / "metrics.csv").string());
  std::size_t pos = 0;
  bool complete = true;
  (void)util::parse_csv_record(text, &pos, &complete);
  while (pos < text.size()) {
    const auto fields = util::parse_csv_record(text, &pos, &complete);
    if (fields.at(0) != "epoch") continue;
    val_losses.push_back(std::stod(fields.at(11)));
    test_losses.push_back(std::stod(fields.at(9)));
  }
  ASSERT_EQ(val_losses.size(), 3u);
  const auto lowest = std::min_element(val_losses.begin(), val_losses.end()) - val_losses.begin();
  const auto best = util::KeyValues::from_text(CheckpointReader((dir / "best.pt").string()).text("best"), "best.pt");
  EXPECT_EQ(best.get_int("epoch"), lowest + 1);
  const double value = best.get_double("value");
  EXPECT_NEAR(value, val_losses[lowest], 1e-5 * val_losses[lowest]);
  EXPECT_GT(std::abs(value - test_losses[lowest]), 1e-3) << "the test loss chose it";
}

TEST(ViTTrainer, DivergenceStopsAndKeepsTheLastGoodCheckpoint) {
  SingleThread single;
  const auto data = test::tiny_fashion_dir("vit_diverge");
  const auto run = test::fresh_temp_dir("vit_diverge_run");
  auto settings = test::tiny_vit_settings(data);
  settings.epochs = 1;
  test::train_vit_with(settings, test::tiny_vit_run(run));
  const auto good = (run / "checkpoints" / "checkpoint_epoch_0001.pt").string();
  ASSERT_TRUE(fs::exists(good));

  settings.epochs = 3;
  settings.schedule = settings::ScheduleKind::kConstant;
  settings.lr = 1e30;
  auto control = test::tiny_vit_run(run);
  control.resume = run.string();
  try {
    test::train_vit_with(settings, control);
    FAIL() << "expected TrainingDiverged";
  } catch (const TrainingDiverged& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("diverged"), std::string::npos) << message;
    EXPECT_NE(message.find(good), std::string::npos) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos);
  }
  EXPECT_EQ(find_checkpoints(run.string()), std::vector<std::string>{good});
}

TEST(ViTTrainer, ResumeRefusesAChangedEpochLength) {
  const auto data = test::tiny_fashion_dir("vit_epoch_len");
  const auto run = test::fresh_temp_dir("vit_epoch_len_run");
  auto settings = test::tiny_vit_settings(data);
  auto control = test::tiny_vit_run(run);
  control.max_iters = 2;
  test::train_vit_with(settings, control);
  settings.batch_size = 32;
  control.resume = run.string();
  control.max_iters = 0;
  EXPECT_THROW(test::train_vit_with(settings, control), std::runtime_error);
}

// A short run on real Fashion-MNIST (3,000 training images, 3 epochs) is far above chance.
TEST(ViTTrainer, ShortFashionMnistRunIsWellAboveChance) {
  if (!fs::exists(fs::path(data::kFashionMnistDir) / "train-images-idx3-ubyte.gz")) {
    GTEST_SKIP() << "Fashion-MNIST is not installed in " << data::kFashionMnistDir
                 << " (Debian package dataset-fashion-mnist)";
  }
  auto settings = vit_preset("fashion");
  settings.data.train_subset = 3000;
  settings.data.test_subset = 1000;
  settings.model.transformer().embedding_size(32).num_heads(4);
  settings.model.stem({StemConv{8, 1}, StemConv{16, 2}, StemConv{32, 2}, StemConv{32, 2}});
  settings.model.num_encoders(2).head_hidden_size(64);
  settings.batch_size = 64;
  settings.epochs = 6;
  settings.lr = 3e-3;
  settings.warmup_epochs = 0.5;
  const auto run = test::fresh_temp_dir("vit_fashion_short");
  auto control = test::tiny_vit_run(run);
  control.log_every = 20;
  const auto result = test::train_vit_with(settings, control);
  EXPECT_GT(result.test_accuracy, 0.65) << "10 classes: chance is 0.10";
  EXPECT_GT(result.images_per_s, 0.0);
}

}  // namespace
}  // namespace dls::train

// The shared training loop with a task of its own: a linear regression, small enough to
// show what a task must supply, and to break on purpose (weights that go NaN while the loss
// stays finite; an evaluation loss that is not finite).
#include "dls/train/training_loop.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include <torch/torch.h>

#include "dls/checkpoint/checkpoint.h"
#include "dls/checkpoint/checkpoint_files.h"
#include "util/temp_files.h"

namespace dls::train {
namespace {

namespace fs = std::filesystem;

struct RegressionImpl : torch::nn::Module {
  RegressionImpl() {
    linear = register_module("linear", torch::nn::Linear(3, 1));
    spare = register_parameter("spare", torch::zeros({2}));  // no loss reaches it
  }
  torch::nn::Linear linear{nullptr};
  torch::Tensor spare;
};
TORCH_MODULE(Regression);

// y = x . (1, -2, 3) over 32 rows, in batches of 8.
class RegressionTask : public TrainingTask {
 public:
  RegressionTask() {
    torch::manual_seed(3);
    model_ = Regression();
    x_ = torch::randn({32, 3});
    y_ = torch::matmul(x_, torch::tensor({1.0f, -2.0f, 3.0f})).unsqueeze(1);
    schedule_.base_lr = 0.2;
  }
  int break_weights_at_step = -1;  // from this step on, `spare` holds a NaN
  bool break_evaluation = false;

  torch::nn::Module& model() override { return *model_; }
  LrSchedule schedule() const override { return schedule_; }
  std::int64_t steps_per_epoch() const override { return 4; }
  std::int64_t examples_per_epoch() const override { return 32; }
  std::string example_unit() const override { return "rows"; }
  void start_epoch(std::int64_t, std::int64_t steps_done, const BatchShare&) override { step_ = steps_done; }
  std::optional<TrainingBatch> next_batch() override {
    if (step_ >= 4) return std::nullopt;
    const auto rows = x_.narrow(0, 8 * step_, 8);
    const auto targets = y_.narrow(0, 8 * step_, 8);
    ++step_;
    if (break_weights_at_step >= 0 && ++steps_taken_ >= break_weights_at_step) {
      torch::NoGradGuard no_grad;
      model_->spare.fill_(NAN);
    }
    return TrainingBatch{rows, targets, 8};
  }
  ChunkLossFn loss_share(const TrainingBatch& batch) override {
    const double rows = static_cast<double>(batch.global_rows);
    return [this, rows](const torch::Tensor& x, const torch::Tensor& y, torch::Tensor*) {
      return torch::mse_loss(model_->linear(x), y, torch::Reduction::Sum) / rows;
    };
  }
  double loss_weight(const TrainingBatch&) const override { return 1.0; }
  EpochEvaluation evaluate(int) override {
    torch::NoGradGuard no_grad;
    const double loss = break_evaluation ? NAN : torch::mse_loss(model_->linear(x_), y_).item<double>();
    return {{{"val_loss", std::to_string(loss)}}, "validation loss " + std::to_string(loss), loss};
  }
  const std::vector<std::string>& metrics_header() const override {
    static const std::vector<std::string> header{"kind", "epoch", "step", "loss", "lr", "rows_per_s", "val_loss", "wall_s"};
    return header;
  }
  std::string rate_column() const override { return "rows_per_s"; }
  void write_plots(const std::string&, const std::string&) const override {}
  std::string checkpoint_kind() const override { return "regression"; }
  void describe_checkpoint(checkpoint::CheckpointWriter& writer, const LoopState& state) const override {
    util::KeyValues settings;
    settings.set("global_step", state.global_step);
    writer.set_settings(settings);
  }

 private:
  Regression model_{nullptr};
  torch::Tensor x_, y_;
  LrSchedule schedule_;
  std::int64_t step_ = 0, steps_taken_ = 0;
};

LoopOptions options_for(const fs::path& run) {
  LoopOptions options;
  options.run_dir = run.string();
  options.epochs = 3;
  options.log_every = 2;
  return options;
}

TEST(TrainingLoop, TrainsATaskOfItsOwnAndWritesTheRun) {
  const auto run = test::fresh_temp_dir("loop_regression");
  RegressionTask task;
  const auto before = task.evaluate(1).loss;
  const auto result = run_training(task, {}, options_for(run), nullptr);
  EXPECT_EQ(result.epochs, 3);
  EXPECT_EQ(result.iterations, 12);
  EXPECT_EQ(result.stopped_by, "epochs");
  EXPECT_LT(task.evaluate(1).loss, before / 2) << "the regression learns";
  EXPECT_EQ(checkpoint::find_checkpoints(run.string()).size(), 3u);
  EXPECT_TRUE(fs::exists(run / "metrics.csv"));
}

TEST(TrainingLoop, WeightsThatAreNotFiniteAreNeverSaved) {
  const auto run = test::fresh_temp_dir("loop_nan_weights");
  RegressionTask task;
  task.break_weights_at_step = 6;  // inside epoch 2: the loss never sees `spare`
  try {
    run_training(task, {}, options_for(run), nullptr);
    FAIL() << "expected TrainingDiverged";
  } catch (const TrainingDiverged& error) {
    const std::string what = error.what();
    EXPECT_NE(what.find("'spare' is not finite"), std::string::npos) << what;
    EXPECT_NE(what.find("checkpoint_epoch_0001.pt"), std::string::npos) << "names the last good one: " << what;
  }
  EXPECT_EQ(checkpoint::find_checkpoints(run.string()).size(), 1u) << "epoch 2's NaN weights were not saved";
}

TEST(TrainingLoop, AnEvaluationLossThatIsNotFiniteStopsBeforeTheSave) {
  const auto run = test::fresh_temp_dir("loop_nan_evaluation");
  RegressionTask task;
  task.break_evaluation = true;
  EXPECT_THROW(run_training(task, {}, options_for(run), nullptr), TrainingDiverged);
  EXPECT_THROW(checkpoint::find_checkpoints(run.string()), std::runtime_error) << "nothing saved";
}

}  // namespace
}  // namespace dls::train

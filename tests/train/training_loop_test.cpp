// The shared training loop with a task of its own: a linear regression, small enough to
// show what a task must supply, and to break on purpose (weights that go NaN while the loss
// stays finite; an evaluation loss that is not finite).
#include "dls/train/training_loop.h"

#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <cmath>
#include <filesystem>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <torch/torch.h>

#include "dls/checkpoint/checkpoint.h"
#include "dls/layers/attention.h"
#include "dls/checkpoint/checkpoint_files.h"
#include "dls/train/stop_signals.h"
#include "dls/util/file_io.h"
#include "util/temp_files.h"

namespace dls::train {
namespace {

namespace fs = std::filesystem;

struct RegressionImpl : torch::nn::Module {
  RegressionImpl() {
    linear = register_module("linear", torch::nn::Linear(3, 1));
    spare = register_parameter("spare", torch::zeros({2}));  // no loss reaches it
    // No loss reaches it either: a layer whose heads are saved by DLStudio's names.
    attention = register_module("attention", SelfAttention(TransformerConfig().embedding_size(8).num_heads(2)));
  }
  torch::nn::Linear linear{nullptr};
  torch::Tensor spare;
  SelfAttention attention{nullptr};
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
  bool break_a_head = false;       // ... or, instead, the second head's WK of `attention`
  int batch_delay_ms = 0;          // each batch takes this long to make (a slow data pipeline)
  bool break_evaluation = false;
  bool signal_in_finish = false;           // finish() (the end-of-run printout) gets a SIGTERM
  std::vector<double> bleu_by_evaluation;  // scripted "bleu" scores, one per evaluation
  torch::Tensor evaluated_weight;          // the weights the latest evaluation saw
  std::int64_t resumed_examples = -1;      // resumed_state() says the saved epoch trained this many rows (-1: as saved)
  mutable std::optional<RunState> saved_on_resume;  // what resumed_state() was given

  torch::nn::Module& model() override { return *model_; }
  RunState resumed_state(RunState saved) const override {
    saved_on_resume = saved;
    if (resumed_examples >= 0) saved.epoch_examples = resumed_examples;
    return saved;
  }
  settings::LrSchedule schedule() const override { return schedule_; }
  std::int64_t steps_per_epoch() const override { return 4; }
  std::int64_t examples_per_epoch() const override { return 32; }
  std::uint64_t training_data_digest() const override { return 0; }
  std::string example_unit() const override { return "rows"; }
  void start_epoch(std::int64_t, std::int64_t steps_done, const BatchShare&) override { step_ = steps_done; }
  std::optional<TrainingBatch> next_batch() override {
    if (step_ >= 4) return std::nullopt;
    if (batch_delay_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(batch_delay_ms));
    const auto rows = x_.narrow(0, 8 * step_, 8);
    const auto targets = y_.narrow(0, 8 * step_, 8);
    ++step_;
    if (break_weights_at_step >= 0 && ++steps_taken_ >= break_weights_at_step) {
      torch::NoGradGuard no_grad;
      (break_a_head ? model_->attention->head_projection(1, Projection::kK).weight : model_->spare).fill_(NAN);
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
    evaluated_weight = model_->linear->weight.clone();
    EpochEvaluation evaluation{
        {{"val_loss", std::to_string(loss)}}, "validation loss " + std::to_string(loss), loss, {}};
    if (evaluations_ < bleu_by_evaluation.size()) evaluation.scores = {{"bleu", bleu_by_evaluation[evaluations_++]}};
    return evaluation;
  }
  const std::vector<std::string>& metrics_header() const override {
    static const std::vector<std::string> header{"kind", "epoch",      "step",     "loss",
                                                 "lr",   "rows_per_s", "val_loss", "wall_s"};
    return header;
  }
  std::string rate_column() const override { return "rows_per_s"; }
  void write_plots(const std::string&, const std::string&) const override {}
  std::string checkpoint_kind() const override { return "regression"; }
  // Nothing of its own: the loop saves the run's state.
  void describe_checkpoint(checkpoint::CheckpointWriter&) const override {}
  void finish(const std::string&) override {
    if (signal_in_finish) std::raise(SIGTERM);
  }

 private:
  Regression model_{nullptr};
  torch::Tensor x_, y_;
  settings::LrSchedule schedule_;
  std::int64_t step_ = 0, steps_taken_ = 0;
  std::size_t evaluations_ = 0;
};

LoopOptions options_for(const fs::path& run) {
  LoopOptions options;
  options.run.run_dir = run.string();
  options.epochs = 3;
  options.run.log_every = 2;
  return options;
}

// A signal after the last step (during the final evaluation or the end-of-run printout) still
// ends the program as a signal does, naming the checkpoint already written; it ran to the
// end and exited 0.
TEST(TrainingLoop, ASignalDuringTheEndOfRunPrintoutIsAnInterruption) {
  const auto run = test::fresh_temp_dir("loop_late_signal");
  RegressionTask task;
  task.signal_in_finish = true;
  try {
    run_training(task, RunState{}, options_for(run), nullptr);
    ADD_FAILURE() << "no interruption";
  } catch (const TrainingInterrupted& stopped) {
    EXPECT_EQ(stopped.exit_status(), 143);
    EXPECT_NE(std::string(stopped.what()).find("stopped by SIGTERM after the run's last step (12); last checkpoint: "),
              std::string::npos)
        << stopped.what();
  }
  EXPECT_TRUE(fs::exists(run / "checkpoints" / "checkpoint_epoch_0003.pt"));
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

// The rate is wall-clock: a step that waits for its batch counts the wait (the rate a run
// takes to finish), as metrics.csv's wall_s does.
TEST(TrainingLoop, TheTrainingRateIsWallClock) {
  const auto run = test::fresh_temp_dir("loop_wall_rate");
  RegressionTask task;
  task.batch_delay_ms = 25;  // 4 batches of 8 rows an epoch: at most 8 / 0.025 = 320 rows/s
  auto options = options_for(run);
  options.epochs = 2;
  const auto result = run_training(task, {}, options, nullptr);
  EXPECT_GT(result.examples_per_s, 0);
  EXPECT_LE(result.examples_per_s, 320.0);
}

// What TrainingDiverged says when `task` trains into `run`; a failure (and "") if it trains
// without one.
std::string divergence_message(RegressionTask& task, const fs::path& run) {
  try {
    run_training(task, {}, options_for(run), nullptr);
  } catch (const TrainingDiverged& error) {
    return error.what();
  }
  ADD_FAILURE() << "expected TrainingDiverged";
  return "";
}

TEST(TrainingLoop, WeightsThatAreNotFiniteAreNeverSaved) {
  const auto run = test::fresh_temp_dir("loop_nan_weights");
  RegressionTask task;
  task.break_weights_at_step = 6;  // inside epoch 2: the loss never sees `spare`
  const auto what = divergence_message(task, run);
  EXPECT_NE(what.find("'spare' is not finite"), std::string::npos) << what;
  EXPECT_NE(what.find("checkpoint_epoch_0001.pt"), std::string::npos) << "names the last good one: " << what;
  EXPECT_EQ(checkpoint::find_checkpoints(run.string()).size(), 1u) << "epoch 2's NaN weights were not saved";
}

// An attention layer trains its heads fused; the message names the head, as the checkpoint
// would (DLStudio's names).
TEST(TrainingLoop, WeightsThatAreNotFiniteAreNamedAsSaved) {
  const auto run = test::fresh_temp_dir("loop_nan_head");
  RegressionTask task;
  task.break_weights_at_step = 2;
  task.break_a_head = true;
  const auto what = divergence_message(task, run);
  EXPECT_NE(what.find("'attention.attention_heads_arr.1.WK.weight' is not finite"), std::string::npos) << what;
}

TEST(TrainingLoop, AnEvaluationLossThatIsNotFiniteStopsBeforeTheSave) {
  const auto run = test::fresh_temp_dir("loop_nan_evaluation");
  RegressionTask task;
  task.break_evaluation = true;
  EXPECT_THROW(run_training(task, {}, options_for(run), nullptr), TrainingDiverged);
  EXPECT_THROW(checkpoint::find_checkpoints(run.string()), std::runtime_error) << "nothing saved";
}

LoopOptions selecting_options(const fs::path& run, std::int64_t epochs, std::int64_t patience) {
  auto options = options_for(run);
  options.epochs = epochs;
  options.selection.best_metric = "bleu";
  options.selection.patience = patience;
  return options;
}

// The "best" text of a checkpoint, as settings.
util::KeyValues best_state(const fs::path& checkpoint) {
  return util::KeyValues::from_text(checkpoint::CheckpointReader(checkpoint.string()).text("best"), "best");
}

std::unique_ptr<checkpoint::CheckpointReader> reader_of(const fs::path& checkpoint) {
  return std::make_unique<checkpoint::CheckpointReader>(checkpoint.string());
}

TEST(TrainingLoop, BestCheckpointFollowsTheBestScoreAndSurvivesKeepLast) {
  const auto run = test::fresh_temp_dir("loop_best");
  RegressionTask task;
  task.bleu_by_evaluation = {0.3, 0.5, 0.4, 0.45, 0.2};
  auto options = selecting_options(run, 5, 0);
  options.run.keep_last = 2;
  run_training(task, {}, options, nullptr);
  const auto checkpoints = run / "checkpoints";
  EXPECT_TRUE(fs::equivalent(run / "best.pt", checkpoints / "checkpoint_epoch_0002.pt")) << "a hard link";
  EXPECT_EQ(best_state(run / "best.pt").get_int("epoch"), 2);
  EXPECT_EQ(best_state(run / "best.pt").get_double("value"), 0.5);
  std::vector<std::string> kept;
  for (const auto& path : checkpoint::find_checkpoints(run.string()))
    kept.push_back(fs::path(path).filename().string());
  EXPECT_EQ(kept, (std::vector<std::string>{"checkpoint_epoch_0002.pt", "checkpoint_epoch_0004.pt",
                                            "checkpoint_epoch_0005.pt"}))
      << "the newest 2 and the one best.pt came from";
  const auto last = best_state(checkpoints / "checkpoint_epoch_0005.pt");
  EXPECT_EQ(last.get_int("epoch"), 2);
  EXPECT_EQ(last.get_int("evaluations_without_improvement"), 3);
}

TEST(TrainingLoop, AnEpochWithoutACheckpointWritesBestPtItself) {
  const auto run = test::fresh_temp_dir("loop_best_direct");
  RegressionTask task;
  task.bleu_by_evaluation = {0.3, 0.5, 0.6, 0.1};
  auto options = selecting_options(run, 4, 0);
  options.run.checkpoint_every = 2;
  run_training(task, {}, options, nullptr);
  EXPECT_EQ(best_state(run / "best.pt").get_int("epoch"), 3);
  EXPECT_EQ(best_state(run / "best.pt").get("source"), "");
  EXPECT_FALSE(fs::equivalent(run / "best.pt", run / "checkpoints" / "checkpoint_epoch_0004.pt"));
  EXPECT_EQ(checkpoint::find_checkpoints(run.string()).size(), 2u) << "epochs 2 and 4 only";
}

TEST(TrainingLoop, PatienceStopsTheRunAtTheRightEvaluation) {
  const auto run = test::fresh_temp_dir("loop_patience");
  RegressionTask task;
  task.bleu_by_evaluation = {0.3, 0.5, 0.4, 0.45, 0.9, 0.9};
  const auto result = run_training(task, {}, selecting_options(run, 6, 2), nullptr);
  EXPECT_EQ(result.stopped_by, "patience");
  EXPECT_EQ(result.epochs, 4) << "evaluations 3 and 4 did not beat epoch 2's";
  EXPECT_EQ(fs::path(checkpoint::latest_checkpoint(run.string())).filename(), "checkpoint_epoch_0004.pt");
}

// The loop saves where the run stands in every checkpoint (the task describes only its own
// part: this one nothing), and a resume starts from the task's view of the saved state.
TEST(TrainingLoop, SavesTheRunsStateAndResumesFromTheTasksViewOfIt) {
  const auto run = test::fresh_temp_dir("loop_run_state");
  auto options = options_for(run);
  options.run.max_iters = 6;  // two steps into the second epoch of 4 steps of 8 rows
  {
    RegressionTask task;
    run_training(task, {}, options, nullptr);
  }
  const auto file = run / "checkpoints" / "checkpoint_epoch_0002.pt";
  const auto saved = checkpoint::RunState::from_settings(checkpoint::CheckpointReader(file.string()).settings());
  EXPECT_EQ(saved.completed_epochs, 1);
  EXPECT_EQ(saved.step_in_epoch, 2);
  EXPECT_EQ(saved.steps_per_epoch, 4);
  EXPECT_EQ(saved.global_step, 6);
  EXPECT_EQ(saved.epoch_examples, 16);
  EXPECT_EQ(saved.epoch_loss_weight, 2.0);  // the task weighs each batch as one
  EXPECT_GT(saved.epoch_loss_sum, 0.0);

  RegressionTask task;
  task.resumed_examples = 10;
  options.run.max_iters = 7;
  run_training(task, saved, options, reader_of(file));
  ASSERT_TRUE(task.saved_on_resume);
  EXPECT_EQ(task.saved_on_resume->global_step, 6);
  const auto next = checkpoint::RunState::from_settings(checkpoint::CheckpointReader(file.string()).settings());
  EXPECT_EQ(next.global_step, 7);
  EXPECT_EQ(next.epoch_examples, 10 + 8) << "one more batch on the task's count, not the saved one";

  // A resume whose --max-iters the run has reached: nothing trained, and the result says why.
  RegressionTask at_limit;
  const auto result = run_training(at_limit, next, options, reader_of(file));
  EXPECT_EQ(result.stopped_by, "max-iters");
  EXPECT_EQ(result.iterations, 7);
}

// The loss of metrics.csv's step row at `step`.
double step_row_loss(const fs::path& run, std::int64_t step) {
  std::istringstream lines(util::read_file((run / "metrics.csv").string()));
  for (std::string line; std::getline(lines, line);) {
    std::vector<std::string> fields;
    std::istringstream cells(line);
    for (std::string cell; std::getline(cells, cell, ',');) fields.push_back(cell);
    if (fields.size() > 3 && fields[0] == "step" && fields[2] == std::to_string(step)) return std::stod(fields[3]);
  }
  return NAN;
}

// The first step row after a resume averages the steps since the row before, as the run
// that never stopped has it (it averaged only the steps since the resume).
TEST(TrainingLoop, TheFirstStepRowAfterAResumeAveragesItsWholeWindow) {
  const auto whole = test::fresh_temp_dir("loop_window_whole"), cut = test::fresh_temp_dir("loop_window_cut");
  auto options = options_for(whole);
  options.run.log_every = 3;  // rows at steps 3, 6, 9, 12: step 6's averages steps 5 and 6
  options.run.max_iters = 8;
  {
    RegressionTask task;
    run_training(task, {}, options, nullptr);
  }
  options = options_for(cut);
  options.run.log_every = 3;
  options.run.max_iters = 5;  // stopped between the rows, step 5 in the window
  {
    RegressionTask task;
    run_training(task, {}, options, nullptr);
  }
  const auto file = cut / "checkpoints" / "checkpoint_epoch_0002.pt";
  const auto saved = checkpoint::RunState::from_settings(checkpoint::CheckpointReader(file.string()).settings());
  EXPECT_EQ(saved.window_loss_weight, 1.0);
  options.run.max_iters = 8;
  RegressionTask resumed;
  run_training(resumed, saved, options, reader_of(file));
  ASSERT_TRUE(std::isfinite(step_row_loss(whole, 6)));
  EXPECT_NEAR(step_row_loss(cut, 6), step_row_loss(whole, 6), 1e-6 * step_row_loss(whole, 6));
}

TEST(TrainingLoop, TheBestScoreAndPatienceSurviveResume) {
  const auto run = test::fresh_temp_dir("loop_best_resume");
  {
    RegressionTask task;
    task.bleu_by_evaluation = {0.3, 0.5, 0.4};
    run_training(task, {}, selecting_options(run, 3, 2), nullptr);
  }
  RegressionTask task;
  task.bleu_by_evaluation = {0.45, 0.9};  // 0.45 would be a fresh tracker's best
  RunState state;
  state.completed_epochs = 3;
  state.global_step = 12;
  const auto result = run_training(task, state, selecting_options(run, 6, 2),
                                   reader_of(run / "checkpoints" / "checkpoint_epoch_0003.pt"));
  EXPECT_EQ(result.stopped_by, "patience");
  EXPECT_EQ(result.epochs, 4);
  EXPECT_EQ(best_state(run / "best.pt").get_int("epoch"), 2);
}

TEST(TrainingLoop, TheMovingAverageIsEvaluatedSavedAndResumed) {
  const auto whole = test::fresh_temp_dir("loop_ema_whole"), split = test::fresh_temp_dir("loop_ema_split");
  auto options = options_for(whole);
  // 0.9 is reached after 80 updates, so the resume after 8 continues the decay's warm-up:
  // the resumed average equals the straight one only if the update count is restored too.
  options.selection.ema_decay = 0.9;
  RegressionTask uninterrupted;
  run_training(uninterrupted, {}, options, nullptr);
  const checkpoint::CheckpointReader reader((whole / "checkpoints" / "checkpoint_epoch_0003.pt").string());
  const auto ema = reader.module_tensors("ema"), model = reader.module_tensors("model");
  ASSERT_EQ(ema.size(), model.size());
  EXPECT_EQ(checkpoint::weights_module(reader, checkpoint::Weights::kEvaluation), "ema");
  EXPECT_EQ(checkpoint::weights_module(reader, checkpoint::Weights::kTrained), "model");
  for (const auto& [name, tensor] : ema) {
    if (name == "linear.weight") {
      EXPECT_TRUE(torch::equal(uninterrupted.evaluated_weight, tensor)) << "evaluation saw the average";
    }
  }
  bool differs = false;
  for (std::size_t i = 0; i < ema.size(); ++i) {
    if (ema[i].second.defined()) differs = differs || !torch::equal(ema[i].second, model[i].second);
  }
  EXPECT_TRUE(differs) << "the average is not the trained weights";

  options.run.run_dir = split.string();
  options.epochs = 2;
  {
    RegressionTask first;
    run_training(first, {}, options, nullptr);
  }
  options.epochs = 3;
  RunState state;
  state.completed_epochs = 2;
  state.global_step = 8;
  RegressionTask second;
  run_training(second, state, options, reader_of(split / "checkpoints" / "checkpoint_epoch_0002.pt"));
  const auto resumed =
      checkpoint::CheckpointReader((split / "checkpoints" / "checkpoint_epoch_0003.pt").string()).module_tensors("ema");
  ASSERT_EQ(resumed.size(), ema.size());
  for (std::size_t i = 0; i < ema.size(); ++i) {
    if (!ema[i].second.defined()) continue;  // a module's own entry
    EXPECT_TRUE(torch::equal(resumed[i].second, ema[i].second)) << ema[i].first << ": --resume restores the average";
  }
}

}  // namespace
}  // namespace dls::train

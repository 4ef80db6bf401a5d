// Rank 0's record of a run as it trains (private to src/train): metrics.csv, under the
// task's columns -- a "step" row every --log-every steps and an "epoch" row per epoch, each
// with its DLStudio-style log line -- and loss_steps.csv, the loss of every step
// (metrics_file.h); with --tensorboard, the same rows as TensorBoard scalars in
// RUN/tensorboard/events.out.tfevents.dls (util/tensorboard_events.h).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "dls/train/loop_state.h"
#include "dls/train/training_task.h"
#include "dls/util/csv.h"
#include "dls/util/tensorboard_events.h"

namespace dls::train {

class TrainingLog {
 public:
  // Fresh runs start both files; resumed ones keep their rows up to `global_step` and append.
  // `epochs`: the run's, for the log lines. `tensorboard_dir` ("": none): the event file's
  // folder, whose file is written anew from metrics.csv's rows (those kept on resume), with
  // wall times on the run's clock (`run_wall_s`: its wall_s now), then appended to.
  TrainingLog(const TrainingTask& task, std::string metrics_path, std::int64_t epochs, bool resume,
              std::int64_t global_step, const std::string& tensorboard_dir, double run_wall_s);

  const std::string& metrics_path() const { return metrics_path_; }

  // The next step row's means start from here: at the start of every epoch (and after each
  // step row).
  void start_window();
  // The window's sums into `state` (for a checkpoint) and back from it (a resumed run's).
  void save_window(checkpoint::RunState& state) const;
  void restore_window(const checkpoint::RunState& state);
  // Every step, after optimizer step `global_step`: its loss (the share of every process,
  // summed) into loss_steps.csv, and its numbers into the next step row's means.
  void add_step(std::int64_t global_step, double loss, double weight, std::int64_t correct, std::int64_t examples);
  // A "step" row and log line: the mean loss (and accuracy) of the steps since the last one.
  // `examples_per_s`: the epoch's training rate so far in this invocation; `wall_s`: now.
  void write_step_row(std::int64_t epoch, const RunState& state, double lr, double examples_per_s, double wall_s);
  // An "epoch" row and log line: the epoch's training means in `state` (its sums not yet
  // cleared) and its evaluation.
  void write_epoch_row(std::int64_t epoch, const RunState& state, double lr, const EpochEvaluation& evaluation);
  // A "final" row: the evaluation of the weights a run stopped with mid-epoch (--max-iters,
  // --time-limit), at its fractional epoch (2.25: a quarter into the third), with the partial
  // epoch's training means in `state`, so that its plots and compare_runs show that score.
  void write_final_row(double epoch, const RunState& state, double lr, const EpochEvaluation& evaluation);

 private:
  // `values` placed under their columns of the task's header, the rest empty.
  void write_metrics_row(const MetricValues& values);

  const TrainingTask& task_;
  std::string metrics_path_;
  std::int64_t epochs_;
  bool has_accuracy_;  // the task has a training "accuracy" column
  std::unique_ptr<util::CsvWriter> metrics_;
  std::unique_ptr<util::CsvWriter> step_losses_;     // loss_steps.csv: every step's loss, for the plot
  std::unique_ptr<util::EventFileAppender> events_;  // --tensorboard
  double wall_origin_ = 0;                           // Unix time at the run's wall_s = 0
  // The steps since the last step row: Σ loss × weight, Σ weight, correct predictions, examples.
  double window_loss_ = 0, window_weight_ = 0;
  std::int64_t window_correct_ = 0, window_examples_ = 0;
};

}  // namespace dls::train

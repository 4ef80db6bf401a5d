// Small pieces both trainers need (private to src/train).
#pragma once

#include <chrono>
#include <string>

#include <torch/optim/optimizer.h>
#include <torch/types.h>

#include "dls/train/training_loop.h"

namespace dls::train {

using TrainClock = std::chrono::steady_clock;

double seconds_since(TrainClock::time_point t);

// printf-formatted number for CSV fields and progress lines; "" when not finite.
std::string number_text(double value, const char* format = "%.6g");

// numerator / denominator; NaN when nothing was counted (denominator <= 0).
double ratio(double numerator, double denominator);

// Whether `task`'s metrics have a training "accuracy" column: then the loop counts the correct
// predictions of every step (TrainingTask::correct_predictions).
bool reports_accuracy(const TrainingTask& task);

// The run directory of a checkpoint file <run>/checkpoints/x.pt (or of a run directory).
std::string run_dir_of(const std::string& resume);

// Adam's state tensors are read onto the CPU; a CUDA run needs them beside the weights
// (and checkpoints are written from CPU tensors so that any machine can read them).
void move_optimizer_state(torch::optim::Optimizer& optimizer, const torch::Device& device);

// The LoopOptions every trainer fills alike. `limits` has max_iters, time_limit_s,
// checkpoint_every, keep_last and log_every (a trainer's options or its run control);
// `control` has parallel, overwrite and config_toml.
template <typename Limits, typename Control>
void fill_loop_options(LoopOptions& loop, const std::string& run_dir, std::int64_t epochs,
                       const checkpoint::OptimizerOptions& optimizer, const checkpoint::SelectionOptions& selection,
                       const Limits& limits, const Control& control, DistributedContext* dist) {
  loop.run_dir = run_dir;
  loop.epochs = epochs;
  loop.max_iters = limits.max_iters;
  loop.time_limit_s = limits.time_limit_s;
  loop.checkpoint_every = limits.checkpoint_every;
  loop.keep_last = limits.keep_last;
  loop.log_every = limits.log_every;
  loop.optimizer = optimizer;
  loop.selection = selection;
  loop.accum_steps = control.parallel.accum_steps;
  loop.bucket_bytes = static_cast<std::int64_t>(control.parallel.bucket_mb * (1 << 20));
  loop.overwrite = control.overwrite;
  loop.config_toml = control.config_toml;
  loop.dist = dist;
}

}  // namespace dls::train

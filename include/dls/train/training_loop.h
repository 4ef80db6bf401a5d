// The training loop every program shares: a TrainingTask (training_task.h) supplies the
// model, batches, loss and evaluation; the loop owns the rest -- resume, the step (batch
// chunks on threads), learning-rate schedule, gradient clipping, optimizer step, the
// divergence check, the live progress line and DLStudio-style log lines, metrics.csv and
// plots, the end-of-epoch evaluation, the checkpoint policy (every N epochs, the last one,
// --keep-last, best.pt), early stopping, the weights' moving average, iteration and time
// limits, and the summary.
#pragma once

#include <chrono>
#include <cmath>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <torch/types.h>

#include "dls/checkpoint/optimizer_options.h"
#include "dls/checkpoint/selection_options.h"
#include "dls/train/training_task.h"
#include "dls/util/precision.h"

namespace dls::checkpoint {
class CheckpointReader;
}

namespace dls::train {

class DistributedContext;
using checkpoint::OptimizerOptions;

// Where a run stands. Saved by each task in its checkpoints (in its own keys).
struct LoopState {
  std::int64_t completed_epochs = 0;  // whole epochs done
  std::int64_t step_in_epoch = 0;     // steps done in epoch completed_epochs + 1
  std::int64_t global_step = 0;       // optimizer steps done in all
  double wall_s = 0;                  // training wall time of the run, all invocations
  double train_loss = NAN;            // mean loss of the latest (possibly partial) epoch
  double examples_per_s = 0;          // training throughput of the latest epoch
  // Sums over the steps done in the epoch in progress (a resumed epoch's means cover it all).
  double epoch_loss_sum = 0;        // Σ batch loss × loss_weight
  double epoch_loss_weight = 0;     // Σ loss_weight
  std::int64_t epoch_examples = 0;  // examples trained
  std::int64_t epoch_correct = 0;   // correct training predictions (tasks with an accuracy)

  // The epoch a checkpoint of this state is named after: the one in progress, if any.
  std::int64_t file_epoch() const { return step_in_epoch > 0 ? completed_epochs + 1 : completed_epochs; }
};

// Thrown when the loss becomes NaN or infinite; names the last good checkpoint.
class TrainingDiverged : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// How one invocation of the loop runs.
struct LoopOptions {
  // When the invocation began (data loading included): wall times count from it.
  std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();
  std::string run_dir;  // checkpoints/, metrics.csv, plots
  // A fresh run (no resume) refuses a run directory that holds an earlier run, so that no
  // run's checkpoints and metrics are overwritten or mixed with another's; with `overwrite`
  // the earlier run is moved aside to <run_dir>.old-N (never deleted).
  bool overwrite = false;
  // A fresh run writes this (when not empty) as its directory's config.toml: the options
  // that repeat the run (apps/config_file.h).
  std::string config_toml;
  std::int64_t epochs = 1;     // epochs of the whole run
  std::int64_t max_iters = 0;  // > 0: stop once the run has made this many steps in all
  // > 0: the whole run's budget, in seconds from its start: stop (with a checkpoint) when it
  // is spent, with a cosine schedule laid out to end there (budgeted_schedule.h). A resume
  // keeps its checkpoint's budget when this is 0.
  double time_limit_s = 0;
  std::int64_t checkpoint_every = 1;  // epochs between checkpoints (the last one is always saved)
  int keep_last = 0;                  // > 0: keep only the newest K checkpoints this run wrote
  std::int64_t log_every = 50;        // steps between log lines and metrics.csv step rows
  OptimizerOptions optimizer;         // kind, betas, eps, weight decay, gradient clipping
  // <run>/best.pt by a validation score, --patience, the weights' moving average
  // (best_checkpoint.h, weight_average.h).
  checkpoint::SelectionOptions selection;
  torch::Device device = torch::kCPU;
  // bf16, fp16: forward passes and the evaluation under autocast (util/precision.h); the
  // weights, gradients, optimizer state and loss stay fp32. fp16 scales the loss
  // (grad_scaler.h) and skips the optimizer step when a gradient is not finite.
  util::Precision precision = util::Precision::kFp32;
  // > 1 (CPU): each step's batch is cut into this many chunks trained concurrently, one
  // thread each (split_batch.h); the same gradient up to rounding.
  int workers = 1;
  // > 1: each process's share of a step's batch goes through forward and backward in this
  // many consecutive micro-batches whose gradients add up (less memory, the same step up to
  // rounding); the all-reduce and the optimizer step come once per step.
  int accum_steps = 1;
  // In a process group: the size of the gradient buckets whose all-reduces start while
  // backward is still running (gradient_buckets.h); <= 0: one all-reduce after backward.
  std::int64_t bucket_bytes = std::int64_t{25} << 20;
  // The process group (distributed.h); nullptr or world size 1: this process alone. Every
  // rank trains its share of each global batch, the gradients are summed by one all-reduce,
  // and only rank 0 evaluates, logs progress, and writes metrics, plots and checkpoints.
  DistributedContext* dist = nullptr;
};

struct LoopResult {
  double examples_per_s = 0;             // training examples per second of training time, this invocation
  double final_loss = NAN;               // mean training loss of the last (possibly partial) epoch
  std::int64_t epochs = 0;               // epochs completed in all
  std::int64_t iterations = 0;           // optimizer steps in all
  double wall_s = 0;                     // wall time of this invocation
  std::vector<std::string> checkpoints;  // written by this invocation
  std::string stopped_by;                // "epochs", "max-iters", "time-limit" or "patience"
  int world_size = 1;                    // processes that trained
  int rank = 0;                          // of this process
  std::string backend = "none";          // of the process group
  double all_reduce_s = 0;               // mean wait per step for the gradient all-reduce after backward (0 alone)
};

// A fresh run's check of its run directory (see LoopOptions::overwrite): throws
// std::runtime_error when it holds an earlier run and `overwrite` is off, else moves that run
// aside. run_training does it itself (rank 0); trainers call it before reading any data, so
// that a refused run fails at once.
void claim_run_directory(const std::string& run_dir, bool overwrite);

// Trains `task` from `state` (LoopState{} for a fresh run). With `resume` (the checkpoint the
// task was rebuilt from), the model, optimizer and RNG state are read from it, and the
// reader (which holds the whole file in memory) is released before training starts. In a
// process group every rank calls it with the same task settings; rank 0's weights are
// broadcast first. Throws
// TrainingDiverged on a non-finite loss; data and checkpoint errors propagate as one-line
// std::runtime_error.
LoopResult run_training(TrainingTask& task, LoopState state, const LoopOptions& options,
                        std::unique_ptr<checkpoint::CheckpointReader> resume);

}  // namespace dls::train

// Where a run stands, how one invocation of the training loop runs and what it returns: the
// loop's own types, low in train/ so that what only passes them on (the checkpoint policy,
// the log, the step, run_start.h, the tasks) need not see the loop itself (training_loop.h).
#pragma once

#include <chrono>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include <torch/types.h>

#include "dls/checkpoint/run_state.h"
#include "dls/settings/optimizer_settings.h"
#include "dls/settings/run_settings.h"
#include "dls/settings/selection_settings.h"

namespace dls::train {

class DistributedContext;
using settings::OptimizerSettings;

// Where a run stands: the loop's state, which it saves in each checkpoint (run_state.h).
using checkpoint::RunState;

// Thrown when the loss becomes NaN or infinite; names the last good checkpoint.
class TrainingDiverged : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// How one invocation of the loop runs: the run's settings (run_dir resolved) beside what
// its task decides (epochs, optimizer, selection) and what start_run() placed (device,
// workers, process group). train/run/run_start.h fills it.
struct LoopOptions {
  // When the invocation began (data loading included): wall times count from it.
  std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();
  // run_dir: checkpoints/, metrics.csv, plots. A fresh run (no resume) refuses a run directory
  // that holds an earlier run, so that no run's checkpoints and metrics are overwritten or
  // mixed with another's; with `overwrite` the earlier run is moved aside to <run_dir>.old-N
  // (never deleted); it writes config_toml (when not empty) as the directory's config.toml.
  // The intervals (checkpoint_every, keep_last, log_every), the limits (max_iters;
  // time_limit_s, whose cosine schedule is laid out to end there -- budgeted_schedule.h),
  // precision (bf16, fp16: forward passes and the evaluation under autocast; weights,
  // gradients, optimizer state and loss stay fp32; fp16 scales the loss -- grad_scaler.h --
  // and skips the optimizer step when a gradient is not finite) and parallel.accum_steps
  // (micro-batches per step whose gradients add up) and bucket_mb (gradient buckets whose
  // all-reduces start while backward is still running -- gradient_buckets.h; 0: one
  // all-reduce after backward).
  settings::RunSettings run;
  std::int64_t epochs = 1;      // epochs of the whole run
  OptimizerSettings optimizer;  // kind, betas, eps, weight decay, gradient clipping
  // <run>/best.pt by a validation score, --patience, the weights' moving average
  // (best_checkpoint.h, optim/weight_average.h).
  settings::SelectionSettings selection;
  torch::Device device = torch::kCPU;  // run.device as placed for this rank
  // > 1 (CPU): each step's batch is cut into this many chunks trained concurrently, one
  // thread each (parallel/split_batch.h); the same gradient up to rounding.
  int workers = 1;
  // The process group (parallel/distributed.h); nullptr or world size 1: this process alone.
  // Every rank trains its share of each global batch, the gradients are summed by one
  // all-reduce, and only rank 0 evaluates, logs progress, and writes metrics, plots and
  // checkpoints.
  DistributedContext* dist = nullptr;
  // A branch's source (--resume RUN/... --run-dir NEW): RUN. NEW starts as a fresh run's
  // directory (config.toml written) with RUN's metrics up to the checkpoint, so that its
  // curves and tables begin at step 0; "" for a fresh run and a resume into its own run.
  std::string branch_of;

  // run.parallel.bucket_mb in bytes.
  std::int64_t bucket_bytes() const { return static_cast<std::int64_t>(run.parallel.bucket_mb * (1 << 20)); }
};

struct LoopResult {
  double examples_per_s =
      0;  // training examples per second of the epochs' wall time (evaluations aside), this invocation
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
  std::string training_step;             // how the steps ran (step_description): "CUDA graphs", "eager (...)"
};

}  // namespace dls::train

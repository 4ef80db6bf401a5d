// What every training program does to train data-parallel: join the process group its
// launcher describes (torchrun or RANK/WORLD_SIZE/MASTER_ADDR/MASTER_PORT by hand; alone
// without them), keep the other ranks' logs to warnings and errors with their rank, and
// after a torchrun restart resume the run by itself.
#pragma once

#include <string>

#include <c10/core/Device.h>

#include "dls/train/distributed.h"

namespace dls::train {

// The command line's data-parallel settings (not saved in checkpoints: the run's result does
// not depend on them).
struct ParallelOptions {
  std::string backend = "auto";  // gloo, nccl, or auto: NCCL for CUDA when the LibTorch has it, else Gloo
  double timeout_s = 300;        // a peer silent for this long ends the run with an error
  int accum_steps = 1;           // micro-batches per optimizer step (training_loop.h)
  double bucket_mb = 25;         // gradient bucket size (MiB) for overlapping all-reduce with backward; 0: none
};

// What a run reports about its process group (start-up log, --json).
struct ParallelReport {
  int world_size = 1;
  int rank = 0;
  std::string backend = "none";
  double all_reduce_s = 0;  // mean wait per step for the gradient all-reduce after backward
};

// Joins the process group of this process's environment for training on `device` (the
// resolved --device); the context's device() is where this rank trains (for CUDA in a group,
// its own GPU). One process: a context of world size 1. Ranks other than 0 log only
// warnings and errors, prefixed "[rank R]". Throws std::runtime_error (one line) for a bad
// environment, an unknown backend, NCCL without CUDA or without NCCL in this LibTorch, or a
// group that cannot be joined within the timeout.
DistributedContext join_process_group(const ParallelOptions& options, const c10::Device& device);

// The run directory to resume after torchrun restarted the job (TORCHELASTIC_RESTART_COUNT
// > 0, no --resume given, and `run_dir` holds checkpoints): `run_dir`; otherwise "".
std::string resume_after_restart(const std::string& run_dir);

}  // namespace dls::train

// What every training program does at its start: choose its device (each torchrun rank its
// own GPU), join the process group its launcher describes (torchrun or
// RANK/WORLD_SIZE/MASTER_ADDR/MASTER_PORT by hand; alone without them), keep the other
// ranks' logs to warnings and errors with their rank, and after a torchrun restart resume
// the run by itself.
#pragma once

#include <string>

#include <c10/core/Device.h>

#include "dls/settings/run_settings.h"
#include "dls/train/parallel/distributed.h"
#include "dls/util/precision.h"

namespace dls::train {

// What a run reports about its process group (start-up log, --json).
struct ParallelReport {
  int world_size = 1;
  int rank = 0;
  std::string backend = "none";
  double all_reduce_s = 0;  // mean wait per step for the gradient all-reduce after backward
};

// Where a training process runs and with whom, decided once at its start.
struct TrainingPlacement {
  torch::Device device = torch::kCPU;  // util::choose_device of --device for this rank
  int workers = 1;                     // batch-chunk workers: the CPU's; one on a GPU
  DistributedContext dist;             // world size 1 without a launcher
};

// The device this training process runs on: util::choose_device of --device `device` for the
// LOCAL_RANK of the launcher's environment (0 without one), so that each local rank takes
// its own GPU. `lookup` reads the environment and `gpus` is the count of visible GPUs (-1:
// ask LibTorch); tests pass their own.
torch::Device training_device(const std::string& device, const EnvLookup& lookup = {}, int gpus = -1);

// What every trainer does first: chooses the device (training_device), checks `precision`
// on it and joins the process group of its launcher's environment (torchrun, or
// RANK/WORLD_SIZE/MASTER_ADDR/MASTER_PORT; alone without them), where ranks other than 0 log
// only warnings and errors, prefixed "[rank R]". Throws one-line errors (std::invalid_argument
// for a device or precision this process cannot have, std::runtime_error for the group).
// `lookup` reads the environment and `gpus` is the count of visible GPUs (-1: ask LibTorch);
// tests pass their own.
TrainingPlacement place_training(const std::string& device, util::Precision precision, int workers,
                                 const settings::ParallelSettings& parallel, const EnvLookup& lookup = {},
                                 int gpus = -1);

}  // namespace dls::train

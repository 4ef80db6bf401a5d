// Training of the visTransformer on CIFAR-10 or Fashion-MNIST: the training loop (progress
// line, per-epoch test accuracy, metrics.csv, loss/accuracy plots, resumable checkpoints,
// divergence check). The settings that travel in checkpoints: checkpoint/vit_settings.h;
// presets: vit_presets.h.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "dls/checkpoint/vit_settings.h"
#include "dls/train/data_parallel.h"
#include "dls/train/training_loop.h"

namespace dls::train {

// How this invocation runs (not saved in checkpoints).
struct ViTRunControl {
  // checkpoints/, metrics.csv, plots; "": the resumed checkpoint's run, else runs/vit
  std::string run_dir;
  std::string resume;                  // checkpoint file or run directory to continue from
  std::int64_t checkpoint_every = 10;  // epochs between checkpoints (the last one is always saved)
  int keep_last = 0;                   // > 0: delete older checkpoints this run wrote
  std::int64_t max_iters = 0;          // > 0: stop after this many optimizer steps in all
  double time_limit_s = 0;             // > 0: the whole run's budget (training_loop.h)
  std::int64_t log_every = 50;         // steps between metrics.csv rows
  std::string device = "cpu";          // cpu | cuda | auto
  // > 1: each step's batch is cut into this many chunks trained concurrently, one thread
  // each (split_batch.h); the same gradient up to rounding. CPU only.
  int workers = 1;
  ParallelOptions parallel;  // process group (from the environment) and gradient accumulation
  bool overwrite = false;    // a fresh run moves an earlier run in its directory aside
  bool dry_run = false;      // read the data, build the model, print the report, stop
  std::string config_toml;   // the program's options, written to a fresh run's directory as config.toml
  // Autocast precision of the forward passes (training_loop.h); checkpoints stay fp32.
  util::Precision precision = util::Precision::kFp32;
};

struct ViTTrainResult {
  double images_per_s = 0;               // training images per second over this invocation
  double test_accuracy = 0;              // after the last epoch evaluated (fraction; NaN if none)
  double final_loss = 0;                 // mean training loss of the last epoch (or partial epoch)
  std::int64_t epochs = 0;               // epochs completed in all
  std::int64_t iterations = 0;           // optimizer steps in all
  double wall_s = 0;                     // wall time of this invocation
  std::vector<std::string> checkpoints;  // written by this invocation
  std::int64_t parameters = 0;
  std::string stopped_by;   // "epochs", "max-iters", "time-limit" or "dry-run"
  ParallelReport parallel;  // world size, rank, backend, all-reduce time
};

// Trains (or resumes: control.resume) and returns the summary. Data and checkpoint errors
// propagate as std::runtime_error with one-line messages.
ViTTrainResult train_vit(const checkpoint::ViTTrainSettings& settings, const ViTRunControl& control);

}  // namespace dls::train

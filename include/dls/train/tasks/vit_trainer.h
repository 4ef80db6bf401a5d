// Training of the visTransformer on CIFAR-10 or Fashion-MNIST: the training loop (progress
// line, per-epoch validation and test accuracy, metrics.csv, loss/accuracy plots, resumable checkpoints,
// divergence check). The settings that travel in checkpoints: settings/vit_settings.h;
// presets: vit_presets.h.
#pragma once

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "dls/checkpoint/opened_checkpoint.h"
#include "dls/settings/vit_settings.h"
#include "dls/train/loop_state.h"
#include "dls/train/run_result.h"

namespace dls::train {

struct ViTTrainResult : RunResult {
  double images_per_s = 0;     // training images per second over this invocation
  double test_accuracy = NAN;  // after the last epoch evaluated (fraction; NaN if none)
  double test_loss = NAN;      // its plain cross-entropy (NaN if no epoch was evaluated here)
  double val_accuracy = NAN;   // of the held-out training images, after the last epoch evaluated
  double val_loss = NAN;       // its plain cross-entropy (NaN without validation images)

  // The --json object of the trainer: these fields, then RunResult's.
  std::string json(const std::string& precision) const;
};

// Trains (or resumes: settings.run.resume) and returns the summary. Data and checkpoint
// errors propagate as std::runtime_error with one-line messages. `opened`: the --resume or
// --init-from checkpoint the program opened already for its settings, taken rather than read
// again (checkpoint/opened_checkpoint.h).
ViTTrainResult train_vit(const settings::ViTTrainSettings& settings, checkpoint::OpenedCheckpoints opened = {});

}  // namespace dls::train

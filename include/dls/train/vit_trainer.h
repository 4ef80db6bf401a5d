// Training of the visTransformer on CIFAR-10 or Fashion-MNIST: presets, the settings that
// travel in checkpoints, and the training loop (progress line, per-epoch test accuracy,
// metrics.csv, loss/accuracy plots, resumable checkpoints, divergence check).
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "dls/data/image_transform.h"
#include "dls/models/vit.h"
#include "dls/train/lr_schedule.h"
#include "dls/train/optimizer.h"
#include "dls/util/key_values.h"

namespace dls::train {

// Which images and how they are prepared.
struct ViTDataSettings {
  std::string dataset = "fashion-mnist";  // "fashion-mnist" or "cifar10"
  std::string data_dir;                   // empty: Fashion-MNIST's Debian folder (CIFAR-10: required)
  std::size_t train_subset = 0;           // > 0: only the first N training images
  std::size_t test_subset = 0;            // > 0: only the first N test images
  // "dlstudio": (x - 0.5) / 0.5 per channel; "dataset": the training images' own mean/std.
  std::string normalization = "dlstudio";
  data::AugmentOptions augment;           // random crop (pad) and horizontal flip
};

// Everything that defines a training run; saved in every checkpoint ("train.*" etc.).
struct ViTTrainSettings {
  std::string preset = "dlstudio";  // the preset these settings started from (information)
  ViTConfig model;
  ViTDataSettings data;
  std::size_t batch_size = 48;
  std::int64_t epochs = 60;
  OptimizerOptions optimizer;      // kind, betas, eps, weight decay, gradient clipping
  ScheduleKind schedule = ScheduleKind::kConstant;
  double lr = 1e-4;                // constant rate, or the cosine schedule's peak
  double min_lr = 0.0;             // cosine: the rate at the end of the last epoch
  double warmup_epochs = 0.0;      // cosine: linear warm-up length, in epochs
  double label_smoothing = 0.0;    // cross-entropy target smoothing
  std::uint64_t seed = 0;          // initialisation, data order, augmentation, dropout

  util::KeyValues to_settings() const;
  // Throws std::runtime_error naming the missing or malformed setting.
  static ViTTrainSettings from_settings(const util::KeyValues& settings);
  // Sets the model's image size, channels and classes from the dataset's name.
  void adapt_model_to_dataset();
  // Multi-line description for the start-up log.
  std::string describe() const;
};

// "dlstudio": DLStudio's CIFAR-10 example (see vit_presets.cpp);
// "fashion": the Fashion-MNIST preset tuned for a 2-core CPU.
// Throws std::invalid_argument for another name.
ViTTrainSettings vit_preset(const std::string& name);
// The preset used when none is named: "dlstudio" for cifar10, "fashion" otherwise.
std::string default_vit_preset(const std::string& dataset);
std::vector<std::string> vit_preset_names();

// How this invocation runs (not saved in checkpoints).
struct ViTRunControl {
  std::string run_dir = "runs/vit";   // checkpoints/, metrics.csv, plots
  std::string resume;                 // checkpoint file or run directory to continue from
  std::int64_t checkpoint_every = 10; // epochs between checkpoints (the last one is always saved)
  int keep_last = 0;                  // > 0: delete older checkpoints this run wrote
  std::int64_t max_iters = 0;         // > 0: stop after this many optimizer steps in all
  double time_limit_s = 0;            // > 0: stop (with a checkpoint) after this long
  std::int64_t log_every = 50;        // steps between metrics.csv rows
  std::string device = "cpu";         // cpu | cuda | auto
  // > 1: each step's batch is cut into this many chunks trained concurrently, one thread
  // each (split_batch.h); the same gradient up to rounding. CPU only.
  int workers = 1;
};

struct ViTTrainResult {
  double images_per_s = 0;      // training images per second over this invocation
  double test_accuracy = 0;     // after the last epoch evaluated (fraction; NaN if none)
  double final_loss = 0;        // mean training loss of the last epoch (or partial epoch)
  std::int64_t epochs = 0;      // epochs completed in all
  std::int64_t iterations = 0;  // optimizer steps in all
  double wall_s = 0;            // wall time of this invocation
  std::vector<std::string> checkpoints;  // written by this invocation
  std::int64_t parameters = 0;
  std::string stopped_by;       // "epochs", "max-iters" or "time-limit"
};

// Thrown when the loss becomes NaN or infinite; the last good checkpoint is kept.
class TrainingDiverged : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Trains (or resumes: control.resume) and returns the summary. Data and checkpoint errors
// propagate as std::runtime_error with one-line messages.
ViTTrainResult train_vit(const ViTTrainSettings& settings, const ViTRunControl& control);

}  // namespace dls::train

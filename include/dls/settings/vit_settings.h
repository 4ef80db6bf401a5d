// Everything that defines a visTransformer training run -- model config, data, optimizer,
// schedule, seed -- as its checkpoints record it ("model.*", "data.*", "optimizer.*",
// "train.*", "selection.*"). The presets that fill it in: train/tasks/vit_presets.h.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "dls/settings/lr_schedule.h"
#include "dls/settings/optimizer_settings.h"
#include "dls/settings/run_settings.h"
#include "dls/settings/selection_settings.h"
#include "dls/data/vit_dataset.h"
#include "dls/models/vit.h"
#include "dls/util/key_values.h"

namespace dls::settings {

// Everything that defines a training run; saved in every checkpoint ("train.*" etc.).
struct ViTTrainSettings {
  std::string preset = "dlstudio";  // the preset these settings started from (information)
  ViTConfig model;
  data::ViTDataSettings data;  // data/vit_dataset.h
  std::size_t batch_size = 48;
  std::int64_t epochs = 60;
  OptimizerSettings optimizer;  // kind, betas, eps, weight decay, gradient clipping
  ScheduleKind schedule = ScheduleKind::kConstant;
  double lr = 1e-4;                         // constant rate, or the cosine schedule's peak
  double min_lr = 0.0;                      // cosine: the rate at the end of the last epoch
  double warmup_epochs = 0.0;               // cosine: linear warm-up length, in epochs
  double label_smoothing = 0.0;             // cross-entropy target smoothing
  std::uint64_t seed = 0;                   // initialisation, data order, augmentation, dropout
  SelectionSettings selection{"accuracy"};  // best.pt, early stopping, weight EMA

  // Where it runs, where it writes, when it stops: what every run has. Checkpoints every 10
  // epochs, metrics.csv rows every 50 steps.
  RunSettings run = [] {
    RunSettings run;
    run.checkpoint_every = 10;
    run.log_every = 50;
    return run;
  }();

  util::KeyValues to_settings() const;
  // Throws std::runtime_error naming the missing or malformed setting.
  static ViTTrainSettings from_settings(const util::KeyValues& settings);
  // Sets the model's image size, channels and classes from the dataset's name.
  void adapt_model_to_dataset();
  // Multi-line description for the start-up log.
  std::string describe() const;
};

}  // namespace dls::settings

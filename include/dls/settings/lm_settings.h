// Everything that defines a language-model training run -- model config, data, optimizer,
// schedule, seed -- as its checkpoints record it ("model.*", "data.*", "optimizer.*",
// "train.*", "selection.*"). The presets that fill it in: train/tasks/lm_presets.h.
#pragma once

#include <cstdint>
#include <string>

#include "dls/settings/lr_schedule.h"
#include "dls/settings/optimizer_settings.h"
#include "dls/settings/run_settings.h"
#include "dls/settings/selection_settings.h"
#include "dls/data/lm_dataset.h"
#include "dls/models/language_model.h"
#include "dls/util/key_values.h"

namespace dls::settings {

struct LmTrainSettings {
  std::string preset = "cpu";  // the preset these settings started from (information)
  LanguageModelConfig model;   // vocab_size and L are set from the data
  data::LmDataSettings data;   // data/lm_dataset.h
  std::int64_t batch_size = 64;
  std::int64_t epochs = 4;
  OptimizerSettings optimizer;  // kind, betas, eps, weight decay, gradient clipping
  ScheduleKind schedule = ScheduleKind::kWarmupCosine;
  double lr = 1e-3;                     // constant rate, or the cosine schedule's peak
  double min_lr = 1e-5;                 // cosine: the rate at the end of the last epoch
  std::int64_t warmup_steps = 500;      // cosine: linear warm-up length
  double label_smoothing = 0.0;         // of the training loss (validation reports the plain NLL)
  std::uint64_t seed = 0;               // initialisation, data order, dropout
  SelectionSettings selection{"loss"};  // best.pt (by validation NLL), early stopping, weight EMA

  // Where it runs, where it writes, when it stops: what every run has. Checkpoints every
  // epoch, log lines every 100 steps (RunSettings' defaults).
  RunSettings run;

  util::KeyValues to_settings() const;
  // Throws std::runtime_error naming the missing or malformed setting.
  static LmTrainSettings from_settings(const util::KeyValues& settings);
  // Multi-line description for the start-up log.
  std::string describe() const;
};

}  // namespace dls::settings

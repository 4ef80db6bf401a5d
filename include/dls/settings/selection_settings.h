// How a run picks and smooths the weights it keeps, as its checkpoints record it: the
// validation score that chooses best.pt, early stopping, and the exponential moving average
// of the weights. Carried out by train/best_checkpoint.h and train/optim/weight_average.h.
#pragma once

#include <cstdint>
#include <string>

#include "dls/util/key_values.h"

namespace dls::settings {

struct SelectionSettings {
  // The validation score that chooses <run>/best.pt: "bleu" or "loss" (seq2seq), "accuracy"
  // or "loss" (ViT); "none": no best.pt and no early stopping.
  std::string best_metric = "none";
  // > 0: stop after this many evaluations in a row without a better best_metric.
  std::int64_t patience = 0;
  // > 0: keep ema = D * ema + (1 - D) * w after every optimizer step, evaluate with it and
  // save it in the checkpoints (evaluation loads it); 0: off.
  double ema_decay = 0;

  util::KeyValues to_settings() const;
  // Keys missing (checkpoints written before these options) keep `defaults`' values.
  static SelectionSettings from_settings(const util::KeyValues& settings, const SelectionSettings& defaults);
};

}  // namespace dls::settings

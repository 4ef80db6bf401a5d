// How a run picks and smooths the weights it keeps, as its checkpoints record it: the
// validation score that chooses best.pt, early stopping, and the exponential moving average
// of the weights. Carried out by train/best_checkpoint.h and train/optim/weight_average.h.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "dls/util/declared.h"
#include "dls/util/key_values.h"

namespace dls::settings {

using util::Setting;

struct SelectionSettings {
  // The validation score that chooses <run>/best.pt: "bleu" or "loss" (seq2seq), "accuracy"
  // or "loss" (ViT); "none": no best.pt and no early stopping.
  std::string best_metric = "none";
  // > 0: stop after this many evaluations in a row without a better best_metric.
  std::int64_t patience = 0;
  // > 0: keep ema = D * ema + (1 - D) * w after every optimizer step, evaluate with it and
  // save it in the checkpoints (evaluation loads it); 0: off.
  double ema_decay = 0;

  // `metrics`: the scores the task's evaluation reports, its default first ("none" is added).
  // Checkpoints written before these options keep the task's defaults.
  template <typename Fields>
  static void declare(SelectionSettings& s, Fields& f, std::vector<std::string> metrics) {
    std::string names;
    for (const auto& metric : metrics) names += metric + ", ";
    const std::string first = metrics.front();
    metrics.push_back("none");
    f(s.best_metric, Setting("best_metric", "--best-metric",
                             "validation score that chooses RUN/best.pt: " + names + "or none (default " + first + ")")
                         .one_of(metrics)
                         .default_when_absent());
    f(s.patience,
      Setting("patience", "--patience", "stop after N evaluations in a row without a better --best-metric (0: never)")
          .range(0, 1000000)
          .default_when_absent());
    f(s.ema_decay,
      Setting("ema_decay", "--ema-decay", "keep ema = D*ema + (1-D)*w after every step; evaluate and save it (0: off)")
          .range(0, 0.999999)
          .default_when_absent());
  }
};

}  // namespace dls::settings

// What the training loop does for --best-metric, --patience and --ema-decay, on rank 0: the
// best score so far (best_checkpoint.h) and the weights' moving average (weight_average.h),
// continued from the checkpoint resumed from and written into every checkpoint. Private to
// src/train.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>

#include <torch/nn/module.h>

#include "dls/settings/selection_settings.h"
#include "dls/train/best_checkpoint.h"
#include "dls/train/training_task.h"
#include "dls/train/optim/weight_average.h"
#include "dls/checkpoint/checkpoint_fwd.h"

namespace dls::train {

class RunSelection {
 public:
  // `model` on its training device; `resume`: the checkpoint the run continues (or null).
  RunSelection(const settings::SelectionSettings& options, torch::nn::Module& model,
               const checkpoint::CheckpointReader* resume);

  // After every optimizer step: the moving average takes the new weights in.
  void after_step();
  // The model holds the weights to evaluate while the result lives: the moving average with
  // --ema-decay (null without).
  std::unique_ptr<SwappedWeights> evaluation_weights();

  struct Verdict {
    bool improved = false;         // the evaluation bettered the best score
    bool out_of_patience = false;  // --patience evaluations in a row did not
  };
  Verdict judge(std::int64_t epoch, const EpochEvaluation& evaluation);

  // The moving average as module "ema" (what evaluation loads) and the best score as text "best".
  void describe(checkpoint::CheckpointWriter& writer);

  // Null without --best-metric.
  BestCheckpoint* best() { return best_ ? &*best_ : nullptr; }

 private:
  torch::nn::Module& model_;
  std::optional<BestCheckpoint> best_;
  std::optional<ExponentialMovingAverage> ema_;
};

}  // namespace dls::train

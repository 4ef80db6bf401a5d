// Where a run stands, as language-model and ViT checkpoints save it under "state.": the
// fields and keys the two share (epochs and steps done, wall time, the latest epoch's loss and
// the sums of the epoch in progress), written and read in one place. Each kind's state adds
// its own metrics (lm_checkpoint.h, vit_checkpoint.h); seq2seq checkpoints keep their older
// TrainingProgress (seq2seq_checkpoint.h).
#pragma once

#include <cstdint>

#include "dls/util/key_values.h"

namespace dls::checkpoint {

struct EpochProgress {
  std::int64_t completed_epochs = 0;  // whole epochs done
  std::int64_t step_in_epoch = 0;     // steps done in epoch completed_epochs + 1
  std::int64_t steps_per_epoch = 0;
  std::int64_t global_step = 0;  // optimizer steps done in all
  double wall_s = 0;             // training wall time in all invocations
  double train_loss = 0;         // mean training loss of the latest (partial) epoch
  double epoch_loss_sum = 0;     // the epoch in progress's loss sum (each kind says over what)

  // The epoch a checkpoint of this state is named after: the one in progress, if any.
  std::int64_t file_epoch() const { return step_in_epoch > 0 ? completed_epochs + 1 : completed_epochs; }
  // Epochs done, fractional when stopped inside an epoch (2.25).
  double epochs_done() const;

  // These fields under their keys ("completed_epochs", ..., "epoch_loss_sum").
  void write_progress(util::KeyValues& settings) const;
  void read_progress(const util::KeyValues& settings);
};

}  // namespace dls::checkpoint

// The training loop every program shares: a TrainingTask (training_task.h) supplies the
// model, batches, loss and evaluation; the loop owns the rest -- resume, the step (batch
// chunks on threads), learning-rate schedule, gradient clipping, optimizer step, the
// divergence check, the live progress line and DLStudio-style log lines, metrics.csv and
// plots, the end-of-epoch evaluation, the checkpoint policy (every N epochs, the last one,
// --keep-last, best.pt), early stopping, the weights' moving average, iteration and time
// limits, and the summary.
#pragma once

#include <memory>
#include <string>

#include "dls/train/loop_state.h"
#include "dls/train/training_task.h"
#include "dls/checkpoint/checkpoint_fwd.h"

namespace dls::train {

// Trains `task` from `state` (RunState{} for a fresh run). With `resume` (the checkpoint the
// task was rebuilt from), the model, optimizer and RNG state are read from it, and the
// reader (which holds the whole file in memory) is released before training starts. In a
// process group every rank calls it with the same task settings; rank 0's weights are
// broadcast first. Throws
// TrainingDiverged on a non-finite loss; data and checkpoint errors propagate as one-line
// std::runtime_error.
LoopResult run_training(TrainingTask& task, RunState state, const LoopOptions& options,
                        std::unique_ptr<checkpoint::CheckpointReader> resume);

}  // namespace dls::train

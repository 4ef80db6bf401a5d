// Checkpoint averaging (checkpoint_eval --average N): the element-wise mean of the weights of
// several checkpoints of one run, written as a checkpoint of its own that evaluation loads
// like any other.
#pragma once

#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

#include "dls/checkpoint/checkpoint.h"

namespace dls::checkpoint {

// Writes to `output` (atomically) a checkpoint whose "model" is the element-wise mean of the
// `weights` of each of `paths` (checkpoint.h; by default the moving average where a
// checkpoint holds one); floating tensors are summed in fp64 and stored in their own dtype,
// others taken from the newest. Settings and texts are those of the last path (the newest),
// plus text "averaged_from" naming the files; no optimizer or RNG state, so the result is for
// evaluation, not --resume. Throws CheckpointError naming the first file whose kind, model
// settings or tensor names and shapes differ from the newest's, and std::runtime_error (one
// line, nothing written) when `output` exists and is not an earlier average (a training
// checkpoint, say) or lies in a run's checkpoints/ folder.
void average_checkpoints(const std::vector<std::string>& paths, const std::string& output,
                         Weights weights = Weights::kEvaluation);

// Where checkpoint_eval average writes the mean of `run`'s newest `n` by default:
// RUN/average_last_N.pt.
std::string average_output(const std::string& run, std::size_t n);

// checkpoint_eval average: the mean of the newest `n` checkpoints of `run` (a run directory's
// own: one another run wrote, copied in, is left out and named on `messages`; a file: itself)
// written to `output`, each file read once. Returns the files averaged, oldest first.
// std::runtime_error (one line, naming `run`, nothing written) when the run has fewer than `n`.
std::vector<std::string> average_newest(const std::string& run, std::size_t n, const std::string& output,
                                        std::ostream& messages, Weights weights = Weights::kEvaluation);

// checkpoint_eval average RUN N --with RUN2 ...: the mean of the newest `n` checkpoints of each
// of `runs` (runs or files; a run's own checkpoints, one another run wrote being left out and
// named on `messages`), written to `output` -- a model soup of runs fine-tuned from one parent,
// or a fine-tuned run with its parent (WiSE-FT). Returns the files averaged, oldest run first.
// std::runtime_error (one line, nothing written) when a run has fewer than n, or shares no
// origin with the first (run_lineage.h): the weights of runs trained apart do not line up, so
// their mean is no model. Each file is read once.
std::vector<std::string> average_runs(const std::vector<std::string>& runs, std::size_t n, const std::string& output,
                                      std::ostream& messages, Weights weights = Weights::kEvaluation);

}  // namespace dls::checkpoint

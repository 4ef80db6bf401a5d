// The training loop's checkpoints (private to src/train): which file a state is saved to,
// best.pt, --keep-last, and what a checkpoint holds besides the task's description -- the
// weights, the optimizer, the RNG state, the moving average and best score, the time budget,
// the run's fingerprint and the world size that trained it. Every rank checks that the
// weights are finite before a save; rank 0 writes the files.
#pragma once

#include <string>
#include <vector>

#include <torch/optim/optimizer.h>

#include "dls/train/loop_state.h"
#include "dls/train/training_task.h"

namespace dls::train {

class BudgetedSchedule;
class DistributedContext;
class RunDirectory;
class RunSelection;

class CheckpointPolicy {
 public:
  // `run` and `selection` are rank 0's (null on the other ranks); `run_id` is the run's
  // fingerprint (start_run_identity, run_identity.h); `resumed_from` the checkpoint this
  // invocation continues ("" for a fresh run).
  CheckpointPolicy(TrainingTask& task, const LoopOptions& options, DistributedContext& dist, RunDirectory* run,
                   RunSelection* selection, const BudgetedSchedule& schedule, torch::optim::Optimizer& optimizer,
                   std::string run_id, std::string resumed_from);

  // The checkpoint of `state`, named after its epoch; best.pt links to it when `improved`
  // (the epoch bettered the best score); then --keep-last prunes.
  void save(const RunState& state, bool improved);
  // An epoch that bettered the best score but has no checkpoint of its own: best.pt is
  // written directly (and --keep-last may prune the file the previous best.pt came from).
  void save_best_only(const RunState& state);

  // For error messages: the newest checkpoint of the run, "none" before any.
  std::string last_good() const { return last_checkpoint_.empty() ? "none" : last_checkpoint_; }
  // The checkpoints this invocation wrote that are still there (--keep-last prunes; best.pt
  // aside).
  const std::vector<std::string>& written() const { return written_; }

 private:
  void check_finite_weights(const RunState& state) const;
  void announce_best() const;
  void write_checkpoint(const std::string& path, const RunState& state);

  TrainingTask& task_;
  const LoopOptions& options_;
  DistributedContext& dist_;
  RunDirectory* run_;
  RunSelection* selection_;
  const BudgetedSchedule& schedule_;
  torch::optim::Optimizer& optimizer_;
  std::string run_id_;
  std::string last_checkpoint_;
  std::vector<std::string> written_;
};

}  // namespace dls::train

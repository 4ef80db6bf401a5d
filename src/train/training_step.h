// The training loop's optimizer step on this process's share of a global batch (private to
// src/train): forward and backward in concurrent chunks (split_batch.h) and consecutive
// micro-batches, in a process group the gradients summed over the ranks while backward runs
// (gradient_buckets.h), fp16 loss scaling (grad_scaler.h), gradient clipping and the
// optimizer step -- or, where plan_step (step_plan.h) allows it, all of it replayed as CUDA
// graphs (captured_step.h).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <torch/optim/optimizer.h>

#include "dls/train/step_plan.h"
#include "dls/train/loop_state.h"
#include "dls/train/training_task.h"
#include "dls/checkpoint/checkpoint_fwd.h"

namespace dls::train {

class CapturedStep;
class DistributedContext;
class GradScaler;
class GradientBuckets;
class GradientBuffer;

class TrainingStep {
 public:
  // `task`'s model on its training device. In a process group rank 0's weights are broadcast
  // to every rank and the gradients become views of one all-reduced buffer. The optimizer
  // starts at the task's base rate, with its state read from `resume` when not null.
  TrainingStep(TrainingTask& task, const LoopOptions& options, DistributedContext& dist,
               const checkpoint::CheckpointReader* resume);
  ~TrainingStep();

  // The optimizer, for its learning rate and for checkpoints.
  torch::optim::Optimizer& optimizer() { return *optimizer_; }

  // Forward and backward of this process's share of a batch (on the device): `workers`
  // concurrent chunks, in options.run.parallel.accum_steps consecutive micro-batches whose gradients add
  // up. Returns the share's loss (its part of the global batch's) as a float64 scalar on the
  // device, not read (the loop reads many steps' losses at once: no host synchronisation per
  // step), and its correct predictions.
  // A captured step does the whole step here (apply() then only reports it).
  std::pair<torch::Tensor, std::int64_t> forward_backward(const TrainingBatch& batch, int workers);

  // In a process group, after forward_backward: waits for the gradient buckets' all-reduces
  // (started during backward) and sums `numbers` over the ranks in one more all-reduce.
  std::vector<double> all_reduce(const std::vector<double>& numbers);

  // Clips the gradients backward left and steps the optimizer on them, which makes optimizer
  // step `global_step`; false when fp16 loss scaling skipped it (a gradient not finite).
  bool apply(std::int64_t global_step);

  // The mean wait per step for the gradient all-reduce after backward (0 alone), and the
  // summary line's account of the all-reduces ("" alone).
  double mean_all_reduce_s() const;
  std::string all_reduce_summary() const;
  // How the steps ran so far (step_description): a recording that failed under --cuda-graphs
  // auto shows here as "eager (recording failed: ...)".
  std::string description() const;
  bool recording_failed() const { return !recording_failure_.empty(); }

 private:
  // Whether the optimizer steps on the gradients backward left: always, except under fp16
  // loss scaling, which first divides them by the scale and skips a step with an inf or NaN.
  bool gradients_usable(std::int64_t global_step);
  // The captured step's forward_backward; nullopt when recording failed under
  // --cuda-graphs auto (the step then runs eagerly from here on).
  std::optional<torch::Tensor> run_captured(const TrainingBatch& batch);

  TrainingTask& task_;
  const LoopOptions& options_;
  DistributedContext& dist_;
  bool has_accuracy_;  // the task counts correct training predictions
  StepPlan plan_;
  std::string recording_failure_;  // why the recording failed, once it has
  // In a process group: the all-reduced gradients; for the graph-safe optimizer: its flat ones.
  std::shared_ptr<GradientBuffer> gradients_;
  std::unique_ptr<GradientBuckets> buckets_;  // and their all-reduces, overlapping backward
  std::unique_ptr<torch::optim::Optimizer> optimizer_;
  std::unique_ptr<GradScaler> scaler_;      // --precision fp16
  std::unique_ptr<CapturedStep> captured_;  // the replayed step (plan_.captured)
  std::function<double()> denominator_;     // of the task's latest batch, for captured_
  bool applied_ = false;                    // the captured step already stepped the optimizer
  double all_reduce_seconds_ = 0;
  std::int64_t all_reduces_ = 0;
  std::int64_t buckets_overlapped_ = 0;  // Σ over steps of buckets started during backward
  std::int64_t table_rows_reduced_ = 0;  // Σ over steps of embedding rows summed
};

}  // namespace dls::train

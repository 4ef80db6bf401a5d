// What one kind of training supplies to the shared training loop (training_loop.h): its
// model, its batches, its loss, its evaluation, and how its checkpoints describe the run.
// Everything else -- the run directory and resume, the step on threads, optimizer and
// schedule stepping, clipping, divergence checks, metrics.csv, progress, the checkpoint
// policy, limits and the summary -- belongs to the loop, so a new kind of training (a
// language model, say) is one small class.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <torch/nn/module.h>
#include <torch/types.h>

#include "dls/checkpoint/run_state.h"
#include "dls/settings/lr_schedule.h"
#include "dls/train/parallel/split_batch.h"

namespace dls::checkpoint {
class CheckpointWriter;
}

namespace dls::train {

using settings::LrSchedule;

// Which part of every global batch this process trains (distributed_sampler.h): rank r of
// world_size W takes the batch's rows at permutation positions p with p mod W == r.
struct BatchShare {
  int rank = 0;
  int world_size = 1;
};

// This process's share of one training step's global batch, on the CPU (the loop moves it
// to the device). In one process the share is the whole batch.
struct TrainingBatch {
  torch::Tensor inputs;          // [b, ...]
  torch::Tensor targets;         // [b, ...]
  std::int64_t global_rows = 0;  // B: the rows of the global batch over all processes
};

// A step a CUDA graph can record (train/captured_step.h): the batch's loss as
// sum / denominator, the sum from device work alone on fixed shapes (no host read, no
// data-dependent shape), the denominator counted on the host from the batch next_batch()
// returned last.
using LossSumFn = std::function<torch::Tensor(const torch::Tensor& inputs, const torch::Tensor& targets)>;
struct CapturableLoss {
  LossSumFn sum;                        // inputs [b, ...], targets [b, ...] on the device -> float32 scalar
  std::function<double()> denominator;  // of the latest batch: its rows or real target tokens
};

// Named values for metrics.csv columns ({"val_loss", "2.0641"}); a column missing from a row
// stays empty.
using MetricValues = std::vector<std::pair<std::string, std::string>>;

// What an end-of-epoch evaluation reports.
struct EpochEvaluation {
  MetricValues metrics;  // the epoch row's evaluation columns
  std::string summary;   // for the epoch's log line: "validation loss 2.0641, validation BLEU 0.3305"
  double loss = 0;       // the evaluation's loss: not finite means the model diverged (not saved)
  // The scores --best-metric chooses from, by name: {"bleu", 0.3305}, {"loss", 2.0641}. Empty
  // when nothing was evaluated (no validation data): no best.pt, no patience counted.
  std::vector<std::pair<std::string, double>> scores;
};

class TrainingTask {
 public:
  virtual ~TrainingTask() = default;

  // --- What is trained.
  virtual torch::nn::Module& model() = 0;
  // Where a resumed run starts: the state its checkpoint saved, completed with what a file
  // written before RunState left out (a seq2seq file's pairs of the epoch in progress).
  virtual checkpoint::RunState resumed_state(checkpoint::RunState saved) const { return saved; }
  // The learning rate of every optimizer step (total steps and warm-up resolved).
  virtual settings::LrSchedule schedule() const = 0;
  virtual std::int64_t steps_per_epoch() const = 0;
  virtual std::int64_t examples_per_epoch() const = 0;
  virtual std::string example_unit() const = 0;  // "pairs", "img": the progress line's rate
  // A digest of the training examples as this process encoded them (util/digest.h), which
  // the ranks of a data-parallel run compare (parallel/rank_agreement.h): the same data
  // gives the same value on every machine.
  virtual std::uint64_t training_data_digest() const = 0;

  // --- The batches and the loss.
  // Begins `epoch` (1-based) with its first `steps_done` steps already trained (resume);
  // this process trains `share` of every batch.
  virtual void start_epoch(std::int64_t epoch, std::int64_t steps_done, const BatchShare& share) = 0;
  // This process's share of the epoch's next global batch; nullopt after the last.
  virtual std::optional<TrainingBatch> next_batch() = 0;
  // The loss of some rows of `batch` as their share of the *global* batch's loss, so that the
  // shares of disjoint chunks on every process add up to the global batch's loss
  // (split_batch.h). `batch` is on the device; the loss is normalised by what the global
  // batch counts (its rows, or its real target tokens), which the task knows from
  // next_batch.
  virtual ChunkLossFn loss_share(const TrainingBatch& batch) = 0;
  // The global batch's weight in the epoch's mean loss: 1 (a mean over steps) or its rows.
  virtual double loss_weight(const TrainingBatch& batch) const = 0;
  // Correct predictions among these rows, given the model's outputs for them, for tasks
  // with a training accuracy (nullopt: none; then outputs need not be kept).
  virtual std::optional<std::int64_t> correct_predictions(const TrainingBatch& batch,
                                                          const torch::Tensor& outputs) const {
    (void)batch;
    (void)outputs;
    return std::nullopt;
  }

  // The loss as a captured step needs it, when the task's batches and loss allow one (fixed
  // shapes); nullopt: every step runs eagerly.
  virtual std::optional<CapturableLoss> capturable_loss() { return std::nullopt; }

  // --- Evaluation after each complete epoch (model in training mode on entry and exit).
  // `workers`: concurrent chunks for decoding on the CPU.
  virtual EpochEvaluation evaluate(int workers) = 0;

  // --- Output.
  // metrics.csv's columns. The loop fills "kind", "epoch", "step", "loss", "lr", "wall_s",
  // "accuracy" (training accuracy, tasks with correct_predictions) and the rate column
  // rate_column(); evaluate() the rest.
  virtual const std::vector<std::string>& metrics_header() const = 0;
  virtual std::string rate_column() const = 0;  // "pairs_per_s", "images_per_s"
  // The run's plots, drawn from the whole metrics file (resumed runs show their history).
  virtual void write_plots(const std::string& metrics_path, const std::string& run_dir) const = 0;
  virtual std::string checkpoint_kind() const = 0;  // "seq2seq", "vit"
  // The checkpoint's self-description: kind-specific settings, vocabularies, the latest
  // evaluation (the loop adds the run's state, the weights, the optimizer and the RNG state).
  virtual void describe_checkpoint(checkpoint::CheckpointWriter& writer) const = 0;
  // The end of the run (after the last checkpoint): e.g. sample translations.
  virtual void finish(const std::string& run_dir) { (void)run_dir; }
};

}  // namespace dls::train

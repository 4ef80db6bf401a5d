// Next-token prediction with the decoder-only LanguageModel as a task of the shared
// training loop (private to src/train): the sentences and their split, the model, batches
// of token rows, the per-token loss, and the validation perplexity after every epoch.
#pragma once

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "dls/checkpoint/lm_checkpoint.h"
#include "dls/train/parallel/distributed_sampler.h"
#include "dls/train/loop_state.h"
#include "dls/train/training_task.h"
#include "dls/data/lm_dataset.h"
#include "dls/eval/lm_evaluation.h"

namespace dls::train {

using settings::LmTrainSettings;

class LmTask : public TrainingTask {
 public:
  // Reads the data, builds the model (vocabulary size and L from the data) and logs the
  // start-up report. `resumed`: the checkpoint's contents, whose split and vocabulary are
  // reused and whose model must equal the one asked for. `parent`: a fresh run's --init-from
  // checkpoint, whose vocabulary it takes (--init-vocab extend or parent); nullptr without.
  LmTask(settings::LmTrainSettings settings, const checkpoint::LmCheckpointContents* resumed,
         const std::string& resumed_path, const checkpoint::CheckpointReader* parent, const torch::Device& device,
         int workers);

  // The loop's state at the checkpoint's state.
  const settings::LmTrainSettings& settings() const { return settings_; }
  LanguageModel& language_model() { return model_; }
  const data::LmDataset& data() const { return data_; }
  double val_nll() const { return val_nll_; }                          // of the latest validation (NaN: none)
  double val_word_perplexity() const { return val_word_perplexity_; }  // of the latest validation (NaN: none)
  // The validation split's likelihood under the model as it is now (no tokens without
  // validation); evaluate() keeps the latest, this stores nothing.
  eval::TokenLikelihood validate();

  torch::nn::Module& model() override { return *model_; }
  settings::LrSchedule schedule() const override { return schedule_; }
  std::int64_t steps_per_epoch() const override { return steps_per_epoch_; }
  std::int64_t examples_per_epoch() const override { return data_.train.rows.size(0); }
  std::uint64_t training_data_digest() const override;
  std::string example_unit() const override { return data_.block_size > 0 ? "win" : "sent"; }
  void start_epoch(std::int64_t epoch, std::int64_t steps_done, const BatchShare& share) override;
  std::optional<TrainingBatch> next_batch() override;
  ChunkLossFn loss_share(const TrainingBatch& batch) override;
  double loss_weight(const TrainingBatch&) const override { return 1.0; }  // the mean over steps
  EpochEvaluation evaluate(int workers) override;
  const std::vector<std::string>& metrics_header() const override;
  std::string rate_column() const override { return "sentences_per_s"; }
  void write_plots(const std::string& metrics_path, const std::string& run_dir) const override;
  std::string checkpoint_kind() const override { return checkpoint::kLmCheckpointKind; }
  void describe_checkpoint(checkpoint::CheckpointWriter& writer) const override;
  void finish(const std::string& run_dir) override;

 private:
  settings::LmTrainSettings settings_;
  data::LmDataset data_;
  LanguageModel model_{nullptr};
  settings::LrSchedule schedule_;
  std::int64_t steps_per_epoch_ = 0;
  std::vector<std::int64_t> order_;            // this epoch's sentence order
  std::optional<DistributedSampler> sampler_;  // this process's rows of each batch
  std::int64_t next_step_ = 0;
  double batch_tokens_ = 0;  // predicted tokens of the latest global batch
  double val_nll_ = NAN;
  double val_word_perplexity_ = NAN;  // exp(Σ NLL / (words + EOS)): comparable across tokenizers
};

}  // namespace dls::train

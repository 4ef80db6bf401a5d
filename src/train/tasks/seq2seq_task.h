// Translation (DLStudio's English->Spanish by default, any pair: data/languages.h) as a task of the shared training
// loop (private to src/train): the corpus and its split, the Seq2SeqTransformer, batches of pairs, the sequence loss,
// and per-epoch validation (loss and greedy-decoding BLEU). The model is the transformer or the
// RNN encoder-decoder with attention (--architecture), through one TranslationModel.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "dls/eval/seq2seq_evaluation.h"
#include "dls/models/seq2seq_loss.h"
#include "dls/train/parallel/distributed_sampler.h"
#include "dls/train/tasks/seq2seq_trainer.h"
#include "dls/train/loop_state.h"
#include "dls/train/training_task.h"
#include "dls/data/seq2seq_dataset.h"

namespace dls::train {

using checkpoint::Seq2SeqCheckpointInfo;
using settings::Seq2SeqTrainSettings;

class Seq2SeqTask : public TrainingTask {
 public:
  // Reads the data, builds settings.model (vocabulary sizes and L from the data) and logs
  // DLStudio's start-up report. `resumed`: the checkpoint's description, whose split and
  // vocabularies are reused and whose model must equal the one built. `parent`: a fresh run's
  // --init-from checkpoint, whose vocabularies it takes (--init-vocab extend or parent);
  // nullptr without.
  Seq2SeqTask(settings::Seq2SeqTrainSettings settings, const Seq2SeqCheckpointInfo* resumed,
              const std::string& resumed_path, const checkpoint::CheckpointReader* parent, const torch::Device& device,
              int workers);

  // DLStudio's start-up printout with the vocabularies of its archive at `archive_path`
  // (the model's Master Decoder with DLStudio's Spanish vocabulary size).
  void log_dlstudio_counts(const std::string& archive_path) const;

  const TranslationModel& translation_model() const { return model_; }
  // Learnable parameters of the encoder and the decoder (embeddings of each side included
  // for an RNN; the transformer's embeddings are counted apart, as DLStudio does).
  std::int64_t encoder_parameters() const;
  std::int64_t decoder_parameters() const;
  const data::Seq2SeqDataset& data() const { return data_; }
  double val_loss() const { return val_loss_; }
  double val_bleu() const { return val_bleu_; }
  // sacreBLEU's BLEU and chrF2 of the latest validation in this process (nullptr before one:
  // checkpoints keep NLTK's BLEU only).
  const eval::TranslationResult* last_validation() const {
    return last_translations_ && !last_translations_->hypotheses.empty() ? &*last_translations_ : nullptr;
  }

  // --test-src/--test-tgt: the final weights' scores on every test pair (finish(); nullptr
  // without a test set or before the end), and how many sources were longer than L - 2 tokens.
  const eval::TranslationResult* test_result() const { return test_result_ ? &*test_result_ : nullptr; }
  std::size_t test_longer_pairs() const { return test_longer_pairs_; }

  torch::nn::Module& model() override { return model_.module(); }
  // The checkpoint's state, with the pairs its epoch in progress trained counted when the
  // file (written before RunState) did not save them.
  RunState resumed_state(RunState saved) const override;
  settings::LrSchedule schedule() const override { return schedule_; }
  std::int64_t steps_per_epoch() const override { return steps_per_epoch_; }
  std::int64_t examples_per_epoch() const override { return data_.train.size(); }
  std::uint64_t training_data_digest() const override;
  std::string example_unit() const override { return "pairs"; }
  void start_epoch(std::int64_t epoch, std::int64_t steps_done, const BatchShare& share) override;
  std::optional<TrainingBatch> next_batch() override;
  ChunkLossFn loss_share(const TrainingBatch& batch) override;
  // With static shapes: the masked loss sum over every output row, over the batch's rows
  // (DLStudio's loss) or real target tokens.
  std::optional<CapturableLoss> capturable_loss() override;
  double loss_weight(const TrainingBatch&) const override { return 1.0; }  // the mean over steps
  EpochEvaluation evaluate(int workers) override;
  const std::vector<std::string>& metrics_header() const override;
  std::string rate_column() const override { return "pairs_per_s"; }
  void write_plots(const std::string& metrics_path, const std::string& run_dir) const override;
  std::string checkpoint_kind() const override;
  void describe_checkpoint(checkpoint::CheckpointWriter& writer) const override;
  void finish(const std::string& run_dir) override;

 private:
  void log_model_report(const torch::Device& device, std::int64_t batch, int workers) const;
  void plan_length_buckets();
  void plan_token_batches();
  // What a checkpoint of the run says of it (the loop adds the run's state).
  Seq2SeqCheckpointInfo checkpoint_info() const;
  void score_test_set(const std::string& run_dir, int workers);

  settings::Seq2SeqTrainSettings settings_;  // its model with the data's vocabulary sizes and L
  data::Seq2SeqDataset data_;
  TranslationModel model_{Seq2SeqTransformer{nullptr}};
  settings::LrSchedule schedule_;
  LossOptions loss_options_;
  std::int64_t steps_per_epoch_ = 0;
  std::vector<std::int64_t> order_;                       // this epoch's pair order (--max-tokens: batch order)
  std::optional<DistributedSampler> sampler_;             // this process's rows of each batch (not with --max-tokens)
  std::vector<std::vector<std::int64_t>> token_batches_;  // --max-tokens: the run's batches (pair indices)
  BatchShare share_;
  int last_workers_ = 1;  // decoding threads evaluate() was given (the test set's at the end)
  std::int64_t next_step_ = 0;
  LossDenominators denominators_;  // of the latest global batch
  std::vector<std::int64_t>
      pair_lengths_;  // --length-buckets, --max-tokens: each training pair's longer side, in tokens
  struct {
    std::int64_t fed = 0, real = 0, full = 0;  // tokens of the batches fed, not padding, and padded to L
  } padding_;
  double val_loss_ = NAN, val_bleu_ = NAN;  // of the latest validation (or the checkpoint's)
  std::optional<eval::TranslationResult> last_translations_;
  std::optional<eval::TranslationResult> test_result_;
  std::size_t test_longer_pairs_ = 0;
};

}  // namespace dls::train

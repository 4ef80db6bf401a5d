#include "train/tasks/lm_task.h"

#include <spdlog/spdlog.h>
#include <torch/torch.h>

#include "dls/train/stop_signals.h"
#include "dls/data/normalize.h"
#include "dls/data/pair_tensors.h"  // epoch_order, batch_indices
#include "dls/data/running_text.h"
#include "dls/eval/lm_evaluation.h"
#include "dls/eval/lm_generation.h"
#include "dls/models/language_model_loss.h"
#include "dls/models/seq2seq.h"  // count_parameters
#include "dls/train/parallel/rank_agreement.h"
#include "dls/train/run_plots.h"
#include "dls/util/digest.h"
#include "train/tasks/lm_metrics.h"
#include "train/training_support.h"

namespace dls::train {

namespace {

using data::Vocabulary;

// Predicted tokens of rows [B, L]: every position after SOS that is not padding.
double predicted_tokens(const torch::Tensor& rows) {
  return (rows.narrow(1, 1, rows.size(1) - 1) != Vocabulary::kPad).sum().item<double>();
}

// The run's data: a resumed run's with its checkpoint's split and vocabulary; a new run from
// --init-from's run with that run's vocabulary (--init-vocab extend or parent: an LM's, or a
// translator's target side), so that the tokens it knew keep their rows (the weights' plan,
// init_plans.h, takes them by token).
data::LmDataset read_lm_data(const settings::LmTrainSettings& settings, const checkpoint::LmCheckpointContents* resumed,
                             const checkpoint::CheckpointReader* parent) {
  if (resumed != nullptr || parent == nullptr || settings.init_vocab == settings::InitVocab::kData)
    return checkpoint::lm_dataset(settings.data, resumed);
  std::vector<std::string> warnings;
  const auto inherited = checkpoint::inherited_lm_vocabulary(
      *parent, settings.data, settings.init_vocab == settings::InitVocab::kExtend, warnings);
  for (const auto& line : warnings) spdlog::warn("{}", line);
  return checkpoint::lm_dataset(settings.data, nullptr, inherited ? &*inherited : nullptr);
}

}  // namespace

LmTask::LmTask(settings::LmTrainSettings settings, const checkpoint::LmCheckpointContents* resumed,
               const std::string& resumed_path, const checkpoint::CheckpointReader* parent, const torch::Device& device,
               int workers)
    : settings_(std::move(settings)), data_(read_lm_data(settings_, resumed, parent)) {
  for (const auto& line : data::describe_lm_dataset(data_, settings_.data)) spdlog::info("{}", line);
  if (const auto warning = data::lm_dataset_warning(data_); !warning.empty()) spdlog::warn("{}", warning);
  settings_.model.vocab_size(data_.vocabulary.size());
  settings_.model.transformer().max_seq_length(data_.max_len);
  settings_.model.validate();
  if (resumed != nullptr && settings_.to_settings().section("model").to_text() !=
                                resumed->settings.to_settings().section("model").to_text()) {
    throw std::runtime_error(resumed_path + ": the checkpoint's model (" + resumed->settings.model.summary() +
                             ") differs from the one asked for (" + settings_.model.summary() + ")");
  }
  steps_per_epoch_ = (data_.train.rows.size(0) + settings_.batch_size - 1) / settings_.batch_size;
  if (resumed != nullptr) {
    check_resumed_steps_per_epoch(resumed_path, resumed->state.steps_per_epoch, resumed->settings.batch_size,
                                  settings_.batch_size, steps_per_epoch_);
  }
  if (resumed != nullptr && resumed->val_nll >= 0) val_nll_ = resumed->val_nll;

  check_training_memory(language_model_training_memory(settings_.model, settings_.batch_size), settings_.batch_size,
                        device, "lower --embedding-size, --decoders, --batch-size or --max-words");
  torch::manual_seed(settings_.seed);
  model_ = LanguageModel(settings_.model);
  schedule_.kind = settings_.schedule;
  schedule_.base_lr = settings_.lr;
  schedule_.min_lr = settings_.min_lr;
  schedule_.warmup_steps = settings_.warmup_steps;
  schedule_.total_steps = settings_.epochs * steps_per_epoch_;
  schedule_.embedding_size = settings_.model.transformer().embedding_size();

  const auto count = count_parameters(*model_);
  spdlog::info("decoder-only language model: {} learnable parameters in {} tensors (decoder stack {})",
               count.parameters, count.tensors, count_parameters(*model_->master_decoder).parameters);
  spdlog::info("{}", settings_.describe());
  spdlog::info("{} steps per epoch of {} {}, device {}{}", steps_per_epoch_, settings_.batch_size,
               data_.block_size > 0 ? "windows" : "sentences", device.str(),
               device.is_cpu() && workers > 1 ? ", each batch in " + std::to_string(workers) + " concurrent chunks"
                                              : std::string());
}

std::uint64_t LmTask::training_data_digest() const {
  // Running text: the stream the epochs cut their windows from; sentences: their rows.
  if (data_.block_size > 0) {
    return util::digest(util::kDigestStart, data_.train_stream.data(),
                        data_.train_stream.size() * sizeof(data_.train_stream[0]));
  }
  return tensor_digest(util::kDigestStart, data_.train.rows);
}

void LmTask::start_epoch(std::int64_t epoch, std::int64_t steps_done, const BatchShare& share) {
  if (data_.block_size > 0) {  // running text: the epoch's windows, at their own offset
    data_.train =
        data::text_windows(data_.train_stream, data_.train_word_marks, data_.block_size,
                           data::window_offset(settings_.seed, epoch, data_.block_size), data_.train.rows.size(0));
  }
  order_ = data::epoch_order(data_.train.rows.size(0), settings_.seed, epoch);
  sampler_.emplace(data_.train.rows.size(0), settings_.batch_size, share.world_size, share.rank);
  next_step_ = steps_done;
}

std::optional<TrainingBatch> LmTask::next_batch() {
  if (next_step_ >= steps_per_epoch_) return std::nullopt;
  const std::int64_t step = next_step_++;
  const std::int64_t count = sampler_->global_count(step);
  const auto rows = data_.train.rows.index_select(0, data::batch_indices(order_, sampler_->global_begin(step), count));
  // The whole global batch's token count, so that every chunk's share adds up to its mean.
  batch_tokens_ = predicted_tokens(rows);
  if (sampler_->world_size() == 1) return TrainingBatch{rows, rows, count};
  const auto mine = data_.train.rows.index_select(0, torch::tensor(sampler_->take(order_, step), torch::kInt64));
  return TrainingBatch{mine, mine, count};
}

ChunkLossFn LmTask::loss_share(const TrainingBatch&) {
  return [this, batch_tokens = batch_tokens_](const torch::Tensor& tokens, const torch::Tensor&, torch::Tensor*) {
    LossOptions options;
    options.label_smoothing = settings_.label_smoothing;
    const auto loss = language_model_loss(model_, tokens, options);  // the chunk's mean per token
    return batch_tokens > 0 ? loss * (predicted_tokens(tokens) / batch_tokens) : loss;
  };
}

eval::TokenLikelihood LmTask::validate() {
  if (data_.validation.rows.size(0) == 0) return {};
  return eval::token_likelihood(model_, data_.validation.rows, Vocabulary::kPad, 256, "validation");
}

EpochEvaluation LmTask::evaluate(int) {
  const auto likelihood = validate();
  val_nll_ = likelihood.mean_nll();
  if (std::isnan(val_nll_)) return {{}, "no validation sentences", 0.0, {}};
  val_word_perplexity_ = likelihood.perplexity_per(data_.validation.words());
  const double perplexity = std::exp(val_nll_);
  return {{{"val_loss", number_text(val_nll_)},
           {"val_perplexity", number_text(perplexity)},
           {"val_word_perplexity", number_text(val_word_perplexity_)}},
          data_.tokenizer.subwords
              ? fmt::format("validation perplexity {:.2f} per piece, {:.2f} per word (NLL {:.4f} per piece)",
                            perplexity, val_word_perplexity_, val_nll_)
              : fmt::format("validation perplexity {:.2f} (NLL {:.4f} per token)", perplexity, val_nll_),
          val_nll_,
          {{"loss", val_nll_}}};
}

const std::vector<std::string>& LmTask::metrics_header() const { return lm_metrics_header(); }

void LmTask::write_plots(const std::string& metrics_path, const std::string& run_dir) const {
  save_run_plots(lm_run_plots(metrics_path, settings_.label_smoothing), run_dir);
}

void LmTask::describe_checkpoint(checkpoint::CheckpointWriter& writer) const {
  const auto& subwords = data_.tokenizer.subwords;
  checkpoint::describe_lm_checkpoint(
      writer, {settings_, data_.split.definition, data_.vocabulary.words(),
               subwords ? subwords->serialized_proto() : std::string(), std::isnan(val_nll_) ? -1 : val_nll_,
               checkpoint::RunState{}});  // the state: the loop's to save
}

void LmTask::finish(const std::string&) {
  // A few sentences (or passages of running text) sampled from the trained model, in the log.
  eval::SamplingOptions sampling;
  sampling.top_k = 40;
  for (std::uint64_t i = 0; i < 3 && StopSignals::received() == 0; ++i) {  // Ctrl-C: no more (the loop says so)
    sampling.seed = settings_.seed + i;
    if (data_.block_size > 0) {
      const auto text = eval::continue_running_text(model_, data_.tokenizer, data_.vocabulary,
                                                    data::parse_side(settings_.data.side), "", 200, sampling);
      spdlog::info("sample {}:\n{}", i + 1, text);
      continue;
    }
    const auto generated =
        eval::generate(model_, {Vocabulary::kSos}, Vocabulary::kEos, sampling, true, eval::kNotInSentences);
    spdlog::info("sample {}: {}", i + 1,
                 data::join_words(data_.tokenizer.words(data_.vocabulary.decode(generated.tokens))));
  }
}

}  // namespace dls::train

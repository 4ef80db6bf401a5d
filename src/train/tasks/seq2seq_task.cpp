#include "train/tasks/seq2seq_task.h"

#include <algorithm>
#include <cmath>
#include <tuple>

#include <spdlog/spdlog.h>
#include <torch/torch.h>

#include "dls/checkpoint/checkpoint.h"
#include "dls/checkpoint/seq2seq_checkpoint.h"
#include "dls/dlstudio/vocabularies.h"
#include "dls/eval/pair_translation.h"
#include "dls/data/languages.h"
#include "dls/data/length_buckets.h"
#include "dls/data/token_batches.h"
#include "dls/train/parallel/rank_agreement.h"
#include "dls/train/run/run_directory.h"
#include "dls/util/digest.h"
#include "dls/train/run_plots.h"
#include "train/tasks/seq2seq_metrics.h"
#include "train/tasks/seq2seq_samples.h"
#include "train/training_support.h"

namespace dls::train {

namespace {

// The run's data: a resumed run's with its checkpoint's split and vocabularies; a new run
// from --init-from's translation model with that model's vocabularies (--init-vocab extend or
// parent), so that the words it knew keep their rows (a language model's words are taken
// row by row by the weights' plan, init_plans.h).
data::Seq2SeqDataset read_data(const settings::Seq2SeqTrainSettings& settings, const Seq2SeqCheckpointInfo* resumed,
                               const checkpoint::CheckpointReader* parent) {
  if (resumed != nullptr || parent == nullptr || settings.init_vocab == settings::InitVocab::kData)
    return checkpoint::seq2seq_dataset(settings.data, settings.padding(), resumed);
  if (parent->kind() != checkpoint::kSeq2SeqKind)
    return checkpoint::seq2seq_dataset(settings.data, settings.padding(), nullptr);
  std::vector<std::string> warnings;
  const auto inherited =
      checkpoint::inherited_vocabularies(checkpoint::read_seq2seq_info(*parent), parent->path(), settings.data,
                                         settings.init_vocab == settings::InitVocab::kExtend, warnings);
  for (const auto& warning : warnings) spdlog::warn("{}", warning);
  return data::prepare_seq2seq_dataset(settings.data, settings.padding(), nullptr, &inherited);
}

}  // namespace

Seq2SeqTask::Seq2SeqTask(settings::Seq2SeqTrainSettings settings, const Seq2SeqCheckpointInfo* resumed,
                         const std::string& resumed_path, const checkpoint::CheckpointReader* parent,
                         const torch::Device& device, int workers)
    : settings_(std::move(settings)), data_(read_data(settings_, resumed, parent)) {
  for (const auto& line : data::describe_seq2seq_dataset(data_, settings_.data.max_words)) spdlog::info("{}", line);
  for (const auto& line : data::seq2seq_dataset_warnings(data_)) spdlog::warn("{}", line);
  if (data::written_without_spaces(data_.corpus.target_language) && settings_.selection.best_metric == "bleu") {
    spdlog::warn(
        "{} is written without spaces: word BLEU of a whole clause is 0 nearly always, so best.pt and --patience "
        "would follow ties; --best-metric chrf chooses by chrF2 (characters)",
        data::language_name(data_.corpus.target_language));
  }
  settings_.model.src_vocab_size(data_.english.size()).tgt_vocab_size(data_.spanish.size());
  settings_.model.transformer().max_seq_length(data_.max_len);
  // DLStudio's loss trains DLStudio's model: no <pad>/<unk> outputs (Seq2SeqConfig::dlstudio_outputs).
  settings_.model.dlstudio_outputs(settings_.dlstudio_loss);
  if (resumed != nullptr && (settings_.to_settings().section("model").to_text() !=
                                 resumed->settings.to_settings().section("model").to_text() ||
                             settings_.architecture != resumed->settings.architecture ||
                             settings_.rnn_config().summary() != resumed->settings.rnn_config().summary())) {
    throw std::runtime_error(resumed_path + ": the checkpoint's model (" + resumed->settings.model_summary() +
                             ") differs from the one asked for (" + settings_.model_summary() + ")");
  }
  if (resumed != nullptr) {
    val_loss_ = resumed->val_loss;
    val_bleu_ = resumed->val_bleu;
  }
  std::int64_t batch = settings_.batch_size;
  steps_per_epoch_ = (data_.train.size() + batch - 1) / batch;
  if (settings_.max_tokens > 0) {
    plan_token_batches();
    steps_per_epoch_ = static_cast<std::int64_t>(token_batches_.size());
    batch = 0;  // the memory estimate below takes the most rows of any batch
    for (const auto& rows : token_batches_)
      batch = std::max<std::int64_t>(batch, static_cast<std::int64_t>(rows.size()));
  }

  const bool rnn = settings_.architecture == Architecture::kRnnAttention;
  if (rnn && settings_.dlstudio_loss) {
    throw std::runtime_error("--dlstudio-loss: the transformer's loss (an RNN's sources are padded with <pad>)");
  }
  if (!rnn) {
    check_training_memory(seq2seq_training_memory(settings_.model, batch), batch, device,
                          "lower --embedding-size, --encoders, --decoders, --batch-size or --max-words");
  } else {
    settings_.rnn_config().validate();  // its one-line errors before the estimate reads the sizes
    check_training_memory(rnn_seq2seq_training_memory(settings_.rnn_config(), batch), batch, device,
                          "lower --rnn-hidden-size, --rnn-embedding-size, --rnn-layers, --batch-size or --max-words");
  }
  torch::manual_seed(settings_.seed);
  model_ = settings_.build_model();
  if (!settings_.preset_note.empty()) spdlog::info("{}", settings_.preset_note);
  for (const auto& line : util::describe_settings(settings_)) {
    // The other architecture's settings say nothing about this run.
    if (!rnn && line.rfind("RNN", 0) == 0) continue;
    spdlog::info("{}", rnn && line.rfind("Model:", 0) == 0 ? "Model: architecture rnn-attention" : line);
  }
  log_model_report(device, batch, workers);

  schedule_ = settings_.schedule;
  // The inverse-square-root schedule's width: the transformer's M, an RNN's H.
  schedule_.embedding_size = rnn ? settings_.rnn.hidden_size : settings_.model.transformer().embedding_size();
  if (schedule_.total_steps <= 0) schedule_.total_steps = settings_.epochs * steps_per_epoch_;
  loss_options_.dlstudio = settings_.dlstudio_loss;
  loss_options_.label_smoothing = settings_.label_smoothing;
  loss_options_.all_output_rows = settings_.static_shapes;  // fixed shapes in the loss too
  if (settings_.length_buckets) plan_length_buckets();
  if (settings_.static_shapes) {
    spdlog::info("static shapes: every batch {} rows{}, the loss over every output row", batch,
                 settings_.length_buckets ? " and 4, 8, ... or L columns" : " and L columns");
  }
}

namespace {

// Only the vaswani layout masks padding, so only there a batch cut to its longest sentence
// computes what the batch padded to L does; DLStudio's loss counts EOS padding as targets
// (and averages over rows, where --max-tokens needs the loss per token).
void check_cut_batches(const settings::Seq2SeqTrainSettings& settings, const char* flag) {
  if (settings.architecture == Architecture::kRnnAttention && !settings.dlstudio_loss) return;  // packed: masks padding
  if (settings.model.transformer().layout() != Layout::kVaswani || settings.dlstudio_loss ||
      settings.model.pad_index() != data::Vocabulary::kPad) {
    throw std::runtime_error(std::string(flag) +
                             ": needs the vaswani layout and the standard loss (the dlstudio and "
                             "positionwise layouts and --dlstudio-loss compute over all L positions)");
  }
}

}  // namespace

void Seq2SeqTask::plan_length_buckets() {
  check_cut_batches(settings_, "--length-buckets");
  pair_lengths_ = data::longer_side_lengths(data_.train, data::Vocabulary::kPad);
  spdlog::info("length-bucketed batches: each batch padded to its own longest sentence, not to L = {}",
               settings_.model.transformer().max_seq_length());
}

void Seq2SeqTask::plan_token_batches() {
  check_cut_batches(settings_, "--max-tokens");
  if (settings_.length_buckets || settings_.static_shapes) {
    throw std::runtime_error("--max-tokens: its batches are already bucketed by length, and vary in rows: drop " +
                             std::string(settings_.length_buckets ? "--length-buckets" : "--static-shapes"));
  }
  pair_lengths_ = data::longer_side_lengths(data_.train, data::Vocabulary::kPad);
  token_batches_ = data::plan_token_batches(pair_lengths_, settings_.max_tokens, settings_.seed);
  std::size_t fewest = data_.train.size(), most = 0;
  for (const auto& rows : token_batches_) fewest = std::min(fewest, rows.size()), most = std::max(most, rows.size());
  spdlog::info("token batches: {} per epoch of at most {} tokens, {:.1f} pairs on average ({} to {})",
               token_batches_.size(), settings_.max_tokens,
               static_cast<double>(data_.train.size()) / static_cast<double>(token_batches_.size()), fewest, most);
}

std::int64_t Seq2SeqTask::encoder_parameters() const {
  if (model_.is_rnn()) return count_parameters(*model_.rnn()->encoder).parameters;
  return count_parameters(*model_.transformer()->master_encoder).parameters;
}

std::int64_t Seq2SeqTask::decoder_parameters() const {
  if (model_.is_rnn()) return count_parameters(*model_.rnn()->decoder).parameters;
  return count_parameters(*model_.transformer()->master_decoder).parameters;
}

void Seq2SeqTask::log_model_report(const torch::Device& device, std::int64_t batch, int workers) const {
  spdlog::info("{}: {}", model_.name(), model_.summary());
  if (model_.is_rnn()) {
    // DLStudio's Seq2SeqLearning names: EncoderRNN and AttnDecoderRNN, embeddings included.
    spdlog::info("Number of learnable params in EncoderRNN: {}", encoder_parameters());
    spdlog::info("Number of learnable params in AttnDecoderRNN: {}", decoder_parameters());
  } else {
    // DLStudio's printout: parameters, and its "number of layers" (parameter tensors:
    // 128 and 234 for the slides' model).
    auto transformer = model_.transformer();
    const auto encoder = count_parameters(*transformer->master_encoder);
    const auto decoder = count_parameters(*transformer->master_decoder);
    spdlog::info("Number of learnable params in Master Encoder: {}", encoder.parameters);
    spdlog::info("Number of learnable params in Master Decoder: {}", decoder.parameters);
    spdlog::info("Number of layers in Master Encoder: {}; in Master Decoder: {} (parameter tensors, {} and {} blocks)",
                 encoder.tensors, decoder.tensors, settings_.model.num_encoders(), settings_.model.num_decoders());
  }
  spdlog::info("Number of learnable params in the whole model (embeddings included): {}",
               count_parameters(model_.module()).parameters);
  spdlog::info("{} steps per epoch of {} {}, {} epochs, device {}{}", steps_per_epoch_,
               settings_.max_tokens > 0 ? settings_.max_tokens : batch,
               settings_.max_tokens > 0 ? "tokens at most" : "pairs", settings_.epochs, device.str(),
               workers > 1 ? ", each batch in " + std::to_string(workers) + " concurrent chunks" : std::string());
}

void Seq2SeqTask::log_dlstudio_counts(const std::string& archive_path) const {
  if (model_.is_rnn()) throw std::runtime_error("--dlstudio-vocab: DLStudio's counts are of its transformer");
  auto transformer = model_.transformer();
  const auto vocabularies = dlstudio::read_dlstudio_vocabularies(archive_path);
  const auto english = static_cast<std::int64_t>(vocabularies.english.size());
  const auto spanish = static_cast<std::int64_t>(vocabularies.spanish.size());
  // Only the decoder's output layer Linear(M, V) depends on a vocabulary: (M + 1) per word of
  // the target's (English in a --reverse run).
  const auto target = settings_.data.reverse ? english : spanish;
  const auto per_word = settings_.model.transformer().embedding_size() + 1;
  const auto decoder = count_parameters(*transformer->master_decoder).parameters +
                       (target - settings_.model.tgt_vocab_size()) * per_word;
  spdlog::info("DLStudio's vocabularies ({}, without <pad>/<unk>): English {}, Spanish {}", archive_path, english,
               spanish);
  spdlog::info("With them, as DLStudio prints: Number of learnable params in Master Encoder: {}",
               count_parameters(*transformer->master_encoder).parameters);
  spdlog::info("With them, as DLStudio prints: Number of learnable params in Master Decoder: {}", decoder);
}

RunState Seq2SeqTask::resumed_state(RunState state) const {
  if (state.epoch_examples >= 0) return state;  // saved
  state.epoch_examples = std::min(data_.train.size(), state.step_in_epoch * settings_.batch_size);
  if (!token_batches_.empty()) {  // the rows of the epoch's batches done
    const auto order = data::token_batch_order(token_batches_.size(), settings_.seed, state.completed_epochs + 1);
    state.epoch_examples = 0;
    for (std::int64_t k = 0; k < std::min<std::int64_t>(state.step_in_epoch, steps_per_epoch_); ++k) {
      state.epoch_examples += static_cast<std::int64_t>(token_batches_[static_cast<std::size_t>(order[k])].size());
    }
  }
  return state;
}

void Seq2SeqTask::start_epoch(std::int64_t epoch, std::int64_t steps_done, const BatchShare& share) {
  share_ = share;
  next_step_ = steps_done;
  if (!token_batches_.empty()) {
    order_ = data::token_batch_order(token_batches_.size(), settings_.seed, epoch);
    return;
  }
  order_ = settings_.length_buckets
               ? data::bucketed_epoch_order(pair_lengths_, settings_.batch_size, settings_.seed, epoch)
               : data::epoch_order(data_.train.size(), settings_.seed, epoch);
  sampler_.emplace(data_.train.size(), settings_.batch_size, share.world_size, share.rank);
}

std::optional<TrainingBatch> Seq2SeqTask::next_batch() {
  if (next_step_ >= steps_per_epoch_) return std::nullopt;
  const std::int64_t step = next_step_++;
  // The global batch's pairs, and this process's share of them (data-parallel runs).
  std::int64_t count = 0;
  torch::Tensor rows;
  std::vector<std::int64_t> mine;
  if (!token_batches_.empty()) {
    const auto& global = token_batches_[static_cast<std::size_t>(order_[static_cast<std::size_t>(step)])];
    count = static_cast<std::int64_t>(global.size());
    rows = torch::tensor(global, torch::kInt64);
    if (share_.world_size > 1) mine = data::rank_share(global, share_.world_size, share_.rank);
  } else {
    count = sampler_->global_count(step);
    rows = data::batch_indices(order_, sampler_->global_begin(step), count);
    if (share_.world_size > 1) mine = sampler_->take(order_, step);
  }
  const bool cut = settings_.length_buckets || !token_batches_.empty();
  // The whole global batch's denominators, so that the shares of every chunk on every
  // process add up to the batch's loss.
  const auto sources = data_.train.src.index_select(0, rows), targets = data_.train.tgt.index_select(0, rows);
  // [B, L] -> [B, l]: the global batch's own longest sentence, each side (length buckets).
  const auto pad = data::Vocabulary::kPad;  // (DLStudio's loss pads with EOS: nothing is cut)
  std::int64_t src_width = cut ? data::used_columns(sources, pad) : sources.size(1);
  std::int64_t tgt_width = cut ? data::used_columns(targets, pad) : targets.size(1);
  denominators_ = loss_denominators(targets.narrow(1, 1, tgt_width - 1), loss_options_);
  if (settings_.static_shapes && settings_.length_buckets) {  // one width of a few for both sides
    src_width = tgt_width = data::static_width(std::max(src_width, tgt_width), sources.size(1));
  }
  padding_.fed += count * (src_width + tgt_width);
  padding_.real += (sources != pad).sum().item<std::int64_t>() + (targets != pad).sum().item<std::int64_t>();
  padding_.full += count * (sources.size(1) + targets.size(1));
  TrainingBatch batch{sources, targets, count};
  if (share_.world_size > 1) {
    const auto own = torch::tensor(mine, torch::kInt64);
    batch.inputs = data_.train.src.index_select(0, own);
    batch.targets = data_.train.tgt.index_select(0, own);
  }
  batch.inputs = batch.inputs.narrow(1, 0, src_width);
  batch.targets = batch.targets.narrow(1, 0, tgt_width);
  if (settings_.static_shapes) {
    // This process's share of a full batch, the short last one filled with masked rows.
    const std::int64_t world = share_.world_size;
    const std::int64_t fixed_rows = (settings_.batch_size + world - 1) / world;
    std::tie(batch.inputs, batch.targets) =
        data::pad_rows_masked(batch.inputs, batch.targets, fixed_rows, data_.train.src[0].narrow(0, 0, src_width),
                              data_.train.tgt[0].narrow(0, 0, tgt_width), pad);
  }
  return batch;
}

std::optional<CapturableLoss> Seq2SeqTask::capturable_loss() {
  // (without static shapes the loss keeps counted rows: a nonzero())
  if (!settings_.static_shapes || !seq2seq_loss_capturable(settings_)) return std::nullopt;
  CapturableLoss loss;
  loss.sum = [this](const torch::Tensor& src, const torch::Tensor& tgt) {
    auto transformer = model_.transformer();
    return sequence_loss_sum_from_states(*transformer->master_decoder, transformer->final_states(src, tgt),
                                         tgt.narrow(1, 1, tgt.size(1) - 1), loss_options_);
  };
  loss.denominator = [this] { return loss_options_.dlstudio ? denominators_.rows : denominators_.real_tokens; };
  return loss;
}

ChunkLossFn Seq2SeqTask::loss_share(const TrainingBatch&) {
  return [this, denominators = denominators_](const torch::Tensor& src, const torch::Tensor& tgt, torch::Tensor*) {
    return model_loss_share(model_, src, tgt, loss_options_, denominators, settings_.teacher_forcing);
  };
}

EpochEvaluation Seq2SeqTask::evaluate(int workers) {
  if (data_.validation.size() == 0) {
    val_loss_ = val_bleu_ = NAN;
    last_translations_ = eval::TranslationResult{};
    return {{}, "no validation pairs", 0.0, {}};
  }
  LossOptions loss_options;
  loss_options.dlstudio = settings_.dlstudio_loss;  // no label smoothing: report the NLL
  val_loss_ = dataset_loss(model_, data_.validation, loss_options);
  auto indices = data_.split.validation;
  std::int64_t rows = data_.validation.size();
  if (settings_.bleu_sentences > 0 && settings_.bleu_sentences < rows) {
    rows = settings_.bleu_sentences;
    indices.resize(static_cast<std::size_t>(rows));
  }
  last_workers_ = workers;
  eval::DecodeOptions decode;
  decode.workers = workers;  // sentences in concurrent chunks: the same translations
  last_translations_ = eval::translate_and_score(model_, data_.validation.src.narrow(0, 0, rows), data_.spanish,
                                                 data::spanish_sentences(data_, indices), decode,
                                                 data_.spanish_subwords ? &*data_.spanish_subwords : nullptr);
  val_bleu_ = last_translations_->bleu.bleu;
  return {{{"val_loss", number_text(val_loss_)},
           {"val_bleu", number_text(val_bleu_)},
           {"val_sacrebleu", number_text(last_translations_->sacrebleu.score)},
           {"val_chrf", number_text(last_translations_->chrf.score)}},
          fmt::format("validation loss {:.4f}, validation BLEU {:.4f} (sacreBLEU {:.1f}, chrF2 {:.1f}; {:.0f} "
                      "sentences/s)",
                      val_loss_, val_bleu_, last_translations_->sacrebleu.score, last_translations_->chrf.score,
                      last_translations_->sentences_per_s),
          val_loss_,
          {{"bleu", val_bleu_}, {"chrf", last_translations_->chrf.score}, {"loss", val_loss_}}};
}

const std::vector<std::string>& Seq2SeqTask::metrics_header() const { return seq2seq_metrics_header(); }

void Seq2SeqTask::write_plots(const std::string& metrics_path, const std::string& run_dir) const {
  save_run_plots(seq2seq_run_plots(metrics_path, settings_.label_smoothing), run_dir);
}

std::uint64_t Seq2SeqTask::training_data_digest() const {
  return tensor_digest(tensor_digest(util::kDigestStart, data_.train.src), data_.train.tgt);
}

std::string Seq2SeqTask::checkpoint_kind() const { return checkpoint::kSeq2SeqKind; }

Seq2SeqCheckpointInfo Seq2SeqTask::checkpoint_info() const {
  return {settings_,
          data_.split.definition,
          data_.english.words(),
          data_.spanish.words(),
          data_.english_subwords ? data_.english_subwords->serialized_proto() : std::string(),
          data_.spanish_subwords ? data_.spanish_subwords->serialized_proto() : std::string(),
          val_loss_,
          val_bleu_,
          checkpoint::RunState{}};  // the state: the loop's to save
}

void Seq2SeqTask::describe_checkpoint(checkpoint::CheckpointWriter& writer) const {
  checkpoint::describe_seq2seq_checkpoint(writer, checkpoint_info());
}

void Seq2SeqTask::finish(const std::string& run_dir) {
  if (padding_.fed > 0 && !settings_.dlstudio_loss) {
    spdlog::info("padding: {:.1f}% of the tokens fed this invocation (padded to L: {:.1f}%)",
                 100.0 * static_cast<double>(padding_.fed - padding_.real) / static_cast<double>(padding_.fed),
                 100.0 * static_cast<double>(padding_.full - padding_.real) / static_cast<double>(padding_.full));
  }
  write_samples(model_, data_, settings_, RunDirectory(run_dir), last_translations_ ? &*last_translations_ : nullptr);
  if (!data_.test.pairs.empty()) score_test_set(run_dir, last_workers_);
}

// --test-src/--test-tgt: the final weights, greedy decoding, on every test pair, as
// checkpoint_eval report scores a test set (eval/pair_translation.h): a source within L - 2
// tokens decoded in batches, a longer one whole or in parts.
void Seq2SeqTask::score_test_set(const std::string& run_dir, int workers) {
  const checkpoint::LoadedSeq2Seq final_weights{
      checkpoint_info(), model_, data_.english, data_.spanish, data_.english_subwords, data_.spanish_subwords};
  const auto pairs = eval::model_pairs(final_weights, data_.test.pairs);
  eval::DecodeOptions decode;
  decode.workers = workers;
  test_result_ = eval::translate_every_pair(final_weights, run_dir + " (the final weights)", data_.test.pairs, pairs,
                                            decode, "");  // where the model is
  test_longer_pairs_ = pairs.longer.size();
  const auto& result = *test_result_;
  const auto longer = pairs.longer.empty() ? std::string()
                                           : fmt::format(
                                                 ", {} longer than the model reads at once: translated whole "
                                                 "or in parts",
                                                 pairs.longer.size());
  spdlog::info("test set {} ({} pairs{}): BLEU {:.4f} (sacreBLEU {:.1f}, chrF2 {:.1f})", data_.test.source,
               data_.test.pairs.size(), longer, result.bleu.bleu, result.sacrebleu.score, result.chrf.score);
}

}  // namespace dls::train

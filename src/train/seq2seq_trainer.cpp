// The seq2seq training loop.
#include "dls/train/seq2seq_trainer.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include <spdlog/spdlog.h>
#include <torch/torch.h>

#include "dls/checkpoint/checkpoint_files.h"
#include "dls/checkpoint/lr_schedule.h"
#include "dls/checkpoint/rng_state.h"
#include "dls/eval/seq2seq_evaluation.h"
#include "dls/train/optimizer.h"
#include "dls/train/run_directory.h"
#include "dls/train/split_batch.h"
#include "dls/util/progress.h"
#include "dls/util/runtime.h"
#include "seq2seq_data.h"
#include "seq2seq_metrics.h"
#include "seq2seq_samples.h"
#include "training_support.h"

namespace dls::train {

using checkpoint::CheckpointReader;
using checkpoint::kSeq2SeqKind;
using checkpoint::latest_checkpoint;
using checkpoint::LrSchedule;
using checkpoint::read_seq2seq_info;
using checkpoint::restore_cpu_generator_state;
using checkpoint::save_seq2seq_checkpoint;
using checkpoint::Seq2SeqCheckpointInfo;
using checkpoint::Seq2SeqTrainOptions;
using checkpoint::TrainingProgress;

namespace {

struct Validation {
  double loss = NAN;
  eval::TranslationResult translations;
};

Validation validate(Seq2SeqTransformer& model, const Seq2SeqData& data,
                    const Seq2SeqTrainOptions& options, int workers) {
  Validation v;
  if (data.validation.size() == 0) return v;
  eval::LossOptions loss_options;
  loss_options.dlstudio = options.dlstudio_loss;  // no label smoothing: report the NLL
  v.loss = eval::dataset_loss(model, data.validation, loss_options);
  auto indices = data.split.validation;
  std::int64_t rows = data.validation.size();
  if (options.bleu_sentences > 0 && options.bleu_sentences < rows) {
    rows = options.bleu_sentences;
    indices.resize(static_cast<std::size_t>(rows));
  }
  eval::DecodeOptions decode;
  decode.workers = workers;  // sentences in concurrent chunks: the same translations
  v.translations = eval::translate_and_score(model, data.validation.src.narrow(0, 0, rows),
                                             data.spanish, spanish_sentences(data, indices), decode);
  return v;
}

}  // namespace

Seq2SeqCheckpointInfo resume_info(const std::string& dir_or_file) {
  const CheckpointReader reader(latest_checkpoint(dir_or_file), kSeq2SeqKind);
  return read_seq2seq_info(reader);
}

Seq2SeqTrainResult train_seq2seq(Seq2SeqConfig config, const Seq2SeqTrainOptions& options,
                                 const Seq2SeqRunControl& control) {
  const auto start = TrainClock::now();
  const torch::Device device = util::select_device(options.device);
  const int workers = device.is_cpu() ? std::max(1, control.workers) : 1;
  const bool resuming = !control.resume.empty();
  std::optional<CheckpointReader> reader;
  Seq2SeqCheckpointInfo checkpoint;
  if (resuming) {
    reader.emplace(latest_checkpoint(control.resume), kSeq2SeqKind);
    checkpoint = read_seq2seq_info(*reader);
    spdlog::info("resuming from {} (epoch {}, {} steps into it, {} steps in all)", reader->path(),
                 checkpoint.progress.epoch, checkpoint.progress.step_in_epoch,
                 checkpoint.progress.global_step);
  }

  // Data; the model's vocabulary sizes and L follow from it.
  const auto data = prepare_seq2seq_data(options, resuming ? &checkpoint : nullptr);
  for (const auto& line : describe_seq2seq_data(data, options.max_words)) spdlog::info("{}", line);
  config.src_vocab_size(data.english.size()).tgt_vocab_size(data.spanish.size());
  config.transformer().max_seq_length(options.max_words + 2);
  if (resuming && config.to_settings().to_text() != checkpoint.model.to_settings().to_text()) {
    throw std::runtime_error(reader->path() + ": the checkpoint's model (" + checkpoint.model.summary() +
                             ") differs from the one asked for (" + config.summary() + ")");
  }
  const std::int64_t n_train = data.train.size();
  const std::int64_t batch = options.batch_size;
  const std::int64_t steps_per_epoch = (n_train + batch - 1) / batch;

  // Model, optimizer, schedule.
  torch::manual_seed(options.seed);
  Seq2SeqTransformer model(config);
  if (resuming) reader->load_module("model", *model);
  model->to(device);
  Seq2SeqTrainResult result;
  result.encoder_parameters = count_parameters(*model->master_encoder).parameters;
  result.decoder_parameters = count_parameters(*model->master_decoder).parameters;
  result.parameters = count_parameters(*model).parameters;
  spdlog::info("{}: {}", eval::model_name(config), config.summary());
  spdlog::info("Number of learnable params in Master Encoder: {}", result.encoder_parameters);
  spdlog::info("Number of learnable params in Master Decoder: {}", result.decoder_parameters);
  spdlog::info("Number of learnable params in the whole model (embeddings included): {}", result.parameters);
  spdlog::info("{} steps per epoch of {} pairs, {} epochs, device {}{}", steps_per_epoch, batch,
               options.epochs, device.str(),
               workers > 1 ? ", each batch in " + std::to_string(workers) + " concurrent chunks" : std::string());
  RunDirectory run(options.run_dir.empty() ? run_dir_of(control.resume) : options.run_dir);
  result.run_dir = run.path();
  if (control.dry_run) {
    result.stopped_by = "dry-run";
    return result;
  }

  auto optimizer = make_optimizer(model->parameters(), options.optimizer, options.schedule.base_lr);
  TrainingProgress progress;
  std::string last_checkpoint;
  if (resuming) {
    reader->load_optimizer("optimizer", *optimizer);
    move_optimizer_state(*optimizer, device);
    restore_cpu_generator_state(reader->tensor("rng"));
    progress = checkpoint.progress;
    last_checkpoint = reader->path();
    reader.reset();
  }
  LrSchedule schedule = options.schedule;
  schedule.embedding_size = config.transformer().embedding_size();
  if (schedule.total_steps <= 0) schedule.total_steps = options.epochs * steps_per_epoch;
  eval::LossOptions loss_options;
  loss_options.dlstudio = options.dlstudio_loss;
  loss_options.label_smoothing = options.label_smoothing;

  const std::string metrics_path = run.file("metrics.csv");
  auto metrics = open_seq2seq_metrics(metrics_path, resuming, progress.global_step);
  auto save = [&] {
    const std::string path = run.checkpoint_path(progress.step_in_epoch > 0 ? progress.epoch : progress.epoch - 1);
    const bool on_cpu = device.is_cpu();  // checkpoints hold CPU tensors
    if (!on_cpu) {
      model->to(torch::kCPU);
      move_optimizer_state(*optimizer, torch::kCPU);
    }
    save_seq2seq_checkpoint(path, {config, options, data.split.definition, data.english.words(),
                                   data.spanish.words(), progress}, *model, *optimizer);
    if (!on_cpu) {
      model->to(device);
      move_optimizer_state(*optimizer, device);
    }
    run.record_checkpoint(path);
    run.prune_checkpoints(options.keep_last);
    result.checkpoints.push_back(path);
    last_checkpoint = path;
    spdlog::info("checkpoint {}", path);
  };

  const double wall_before = progress.wall_s;
  const std::int64_t L1 = config.transformer().max_seq_length() - 1;
  double train_seconds = 0;
  std::int64_t pairs_trained = 0;
  std::optional<Validation> last_validation;
  result.val_loss = progress.val_loss;
  result.val_bleu = progress.val_bleu;
  bool stop = options.max_iters > 0 && progress.global_step >= options.max_iters;
  for (std::int64_t epoch = progress.epoch; epoch <= options.epochs && !stop; ++epoch) {
    progress.epoch = epoch;
    const auto order = data::epoch_order(n_train, options.seed, epoch);
    util::ProgressOptions bar_options;
    bar_options.unit = "pairs";
    bar_options.initial = std::min(n_train, progress.step_in_epoch * batch);
    util::ProgressBar bar(n_train, "epoch " + std::to_string(epoch) + "/" + std::to_string(options.epochs),
                          bar_options);
    // Sums over the batches of this epoch (a resumed epoch starts from the checkpoint's mean).
    double epoch_loss_sum = progress.step_in_epoch > 0 && std::isfinite(progress.train_loss)
                                ? progress.train_loss * static_cast<double>(progress.step_in_epoch) : 0.0;
    double window_loss = 0, epoch_seconds = 0, lr = 0;
    std::int64_t window_steps = 0, epoch_pairs = 0;
    model->train();
    std::optional<ScopedIntraOpThreads> single_thread;  // for the epoch's steps, not its validation
    if (workers > 1) single_thread.emplace(1);
    while (progress.step_in_epoch < steps_per_epoch) {
      const auto step_start = TrainClock::now();
      const std::int64_t first = progress.step_in_epoch * batch;
      const auto rows = data::batch_indices(order, first, std::min(batch, n_train - first));
      const auto src = data.train.src.index_select(0, rows).to(device);
      const auto tgt = data.train.tgt.index_select(0, rows).to(device);
      lr = schedule.at(progress.global_step + 1);
      set_learning_rate(*optimizer, lr);
      // Forward and backward, in `workers` concurrent chunks of the batch.
      const auto denominators = eval::loss_denominators(tgt.narrow(1, 1, L1), loss_options);
      const auto step = split_forward_backward(
          model->parameters(), src, tgt, workers,
          [&](const torch::Tensor& s, const torch::Tensor& t, torch::Tensor*) {
            return eval::model_loss_share(model, s, t, loss_options, denominators);
          });
      const double loss_value = step.loss;
      if (!std::isfinite(loss_value)) {
        bar.finish();
        throw Seq2SeqDiverged("training diverged at epoch " + std::to_string(epoch) + " step " +
                              std::to_string(progress.global_step + 1) + " (loss " + std::to_string(loss_value) +
                              "); last good checkpoint: " + (last_checkpoint.empty() ? "none" : last_checkpoint));
      }
      if (options.optimizer.clip_grad_norm > 0) {
        torch::nn::utils::clip_grad_norm_(model->parameters(), options.optimizer.clip_grad_norm);
      }
      optimizer->step();
      epoch_seconds += seconds_since(step_start);
      epoch_pairs += rows.size(0);
      progress.global_step += 1;
      progress.step_in_epoch += 1;
      epoch_loss_sum += loss_value;
      progress.train_loss = epoch_loss_sum / static_cast<double>(progress.step_in_epoch);
      window_loss += loss_value;
      window_steps += 1;
      const double rate = epoch_seconds > 0 ? static_cast<double>(epoch_pairs) / epoch_seconds : 0;
      if (bar.due()) {
        bar.update(std::min(n_train, progress.step_in_epoch * batch),
                   {{"loss", number_text(progress.train_loss, "%.4f")}, {"lr", number_text(lr, "%.2e")}});
      }
      if (options.log_every > 0 && progress.global_step % options.log_every == 0) {
        const double elapsed = wall_before + seconds_since(start);
        bar.clear_line();
        spdlog::info("[epoch: {}/{}  iter: {:4d}  elapsed_time: {:4.0f} secs]  loss: {:.4f}", epoch,
                     options.epochs, progress.step_in_epoch, elapsed, window_loss / static_cast<double>(window_steps));
        metrics->write_row({"step", std::to_string(epoch), std::to_string(progress.global_step),
                            number_text(window_loss / static_cast<double>(window_steps)), number_text(lr),
                            number_text(rate), "", "", number_text(elapsed, "%.1f")});
        window_loss = 0;
        window_steps = 0;
      }
      if (options.max_iters > 0 && progress.global_step >= options.max_iters) {
        result.stopped_by = "max-iters";
        stop = true;
      } else if (options.time_limit_s > 0 && seconds_since(start) >= options.time_limit_s) {
        result.stopped_by = "time-limit";
        stop = true;
      }
      if (stop) break;
    }
    single_thread.reset();
    bar.update(std::min(n_train, progress.step_in_epoch * batch));
    bar.finish({{"loss", number_text(progress.train_loss, "%.4f")}, {"lr", number_text(lr, "%.2e")}});
    train_seconds += epoch_seconds;
    pairs_trained += epoch_pairs;
    result.final_loss = progress.train_loss;
    const double epoch_rate = epoch_seconds > 0 ? static_cast<double>(epoch_pairs) / epoch_seconds : 0;
    const bool epoch_complete = progress.step_in_epoch >= steps_per_epoch;
    if (epoch_complete) {
      last_validation = validate(model, data, options, workers);
      progress.val_loss = result.val_loss = last_validation->loss;
      progress.val_bleu = result.val_bleu = last_validation->translations.bleu.bleu;
      progress.wall_s = wall_before + seconds_since(start);
      metrics->write_row({"epoch", std::to_string(epoch), std::to_string(progress.global_step),
                          number_text(progress.train_loss), number_text(lr), number_text(epoch_rate),
                          number_text(progress.val_loss), number_text(progress.val_bleu),
                          number_text(progress.wall_s, "%.1f")});
      spdlog::info("epoch {}/{}: train loss {:.4f}, validation loss {:.4f}, validation BLEU {:.4f} "
                   "({:.0f} sentences/s), {:.0f} pairs/s, elapsed {}",
                   epoch, options.epochs, progress.train_loss, progress.val_loss, progress.val_bleu,
                   last_validation->translations.sentences_per_s, epoch_rate, util::format_duration(progress.wall_s));
      write_seq2seq_plots(metrics_path, run.path());
      progress.epoch = epoch + 1;
      progress.step_in_epoch = 0;
    }
    const bool last = stop || epoch == options.epochs;
    if (last || (epoch_complete && options.checkpoint_every > 0 && epoch % options.checkpoint_every == 0)) {
      progress.wall_s = wall_before + seconds_since(start);
      save();
    }
  }
  if (result.stopped_by.empty()) result.stopped_by = "epochs";
  result.epochs = progress.epoch - 1;
  result.iterations = progress.global_step;
  result.pairs_per_s = train_seconds > 0 ? static_cast<double>(pairs_trained) / train_seconds : 0;
  write_samples(model, data, options, config, run, last_validation ? &last_validation->translations : nullptr);
  result.wall_s = seconds_since(start);
  spdlog::info("done ({}): {} epochs, {} steps, {:.0f} training pairs/s, wall {}", result.stopped_by,
               result.epochs, result.iterations, result.pairs_per_s, util::format_duration(result.wall_s));
  return result;
}

}  // namespace dls::train

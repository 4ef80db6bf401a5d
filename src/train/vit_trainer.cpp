// The visTransformer training loop.
#include "dls/train/vit_trainer.h"

#include <chrono>
#include <cmath>
#include <memory>
#include <optional>

#include <spdlog/spdlog.h>
#include <torch/torch.h>

#include "dls/checkpoint/checkpoint_files.h"
#include "dls/checkpoint/lr_schedule.h"
#include "dls/checkpoint/rng_state.h"
#include "dls/checkpoint/vit_checkpoint.h"
#include "dls/eval/vit_data.h"
#include "dls/models/seq2seq.h"  // count_parameters
#include "dls/train/optimizer.h"
#include "dls/train/run_directory.h"
#include "dls/train/split_batch.h"
#include "dls/util/progress.h"
#include "dls/util/runtime.h"
#include "training_support.h"
#include "vit_metrics.h"

namespace dls::train {

using checkpoint::CheckpointReader;
using checkpoint::kViTCheckpointKind;
using checkpoint::latest_checkpoint;
using checkpoint::LrSchedule;
using checkpoint::read_vit_contents;
using checkpoint::restore_cpu_generator_state;
using checkpoint::ViTTrainSettings;
using checkpoint::ViTTrainState;
using checkpoint::write_vit_checkpoint;
using eval::load_vit_images;
using eval::predict;
using eval::resolve_vit_normalization;

ViTTrainResult train_vit(const ViTTrainSettings& settings, const ViTRunControl& control) {
  const auto start = TrainClock::now();
  const torch::Device device = util::select_device(control.device);
  const bool resuming = !control.resume.empty();
  std::optional<CheckpointReader> reader;
  ViTTrainState state;
  data::Normalization normalization;
  if (resuming) {
    reader.emplace(latest_checkpoint(control.resume), kViTCheckpointKind);
    const auto contents = read_vit_contents(*reader);
    state = contents.state;
    normalization = contents.normalization;
    spdlog::info("resuming from {} ({} epochs and {} steps done)", reader->path(),
                 state.completed_epochs, state.step_in_epoch);
  }

  // Data.
  auto train_set = std::make_shared<const data::ImageSet>(load_vit_images(settings.data, data::Split::kTrain));
  auto test_set = std::make_shared<const data::ImageSet>(load_vit_images(settings.data, data::Split::kTest));
  if (!resuming) normalization = resolve_vit_normalization(settings.data, *train_set);
  TORCH_CHECK(train_set->height == settings.model.image_size() &&
                  train_set->channels == settings.model.channels() &&
                  static_cast<std::int64_t>(train_set->num_classes()) == settings.model.num_classes(),
              "the model expects ", settings.model.image_size(), "x", settings.model.image_size(), "x",
              settings.model.channels(), " images in ", settings.model.num_classes(),
              " classes; the data has ", train_set->height, "x", train_set->width, "x",
              train_set->channels, " in ", train_set->num_classes());
  data::ImageLoaderOptions train_options;
  train_options.batch_size = settings.batch_size;
  train_options.seed = settings.seed;
  train_options.augment = settings.data.augment;
  train_options.normalization = normalization;
  data::ImageLoader train_loader(train_set, train_options);
  data::ImageLoaderOptions test_options;
  test_options.batch_size = 256;
  test_options.shuffle = false;
  test_options.normalization = normalization;
  data::ImageLoader test_loader(test_set, test_options);
  const auto steps_per_epoch = static_cast<std::int64_t>(train_loader.num_batches());
  if (resuming && state.steps_per_epoch != steps_per_epoch) {
    throw std::runtime_error(reader->path() + ": the checkpoint's epochs had " +
                             std::to_string(state.steps_per_epoch) + " steps, this data and batch size give " +
                             std::to_string(steps_per_epoch));
  }
  state.steps_per_epoch = steps_per_epoch;

  // Model, optimizer, schedule.
  torch::manual_seed(settings.seed);
  visTransformer model(settings.model);
  if (resuming) reader->load_module("model", *model);
  model->to(device);
  auto optimizer = make_optimizer(model->parameters(), settings.optimizer, settings.lr);
  if (resuming) {
    reader->load_optimizer("optimizer", *optimizer);
    move_optimizer_state(*optimizer, device);
    restore_cpu_generator_state(reader->tensor("rng"));
  }
  LrSchedule schedule;
  schedule.kind = settings.schedule;
  schedule.base_lr = settings.lr;
  schedule.min_lr = settings.min_lr;
  schedule.total_steps = settings.epochs * steps_per_epoch;
  schedule.warmup_steps = std::llround(settings.warmup_epochs * static_cast<double>(steps_per_epoch));
  schedule.embedding_size = settings.model.transformer().embedding_size();

  ViTTrainResult result;
  result.parameters = count_parameters(*model).parameters;
  spdlog::info("visTransformer: {} learnable parameters in {} tensors", result.parameters,
               count_parameters(*model).tensors);
  spdlog::info("{}", settings.describe());
  spdlog::info("{} training and {} test images, {} steps per epoch, device {}{}", train_set->size(),
               test_set->size(), steps_per_epoch, device.str(),
               device.is_cpu() && control.workers > 1
                   ? ", each batch in " + std::to_string(control.workers) + " concurrent chunks"
                   : std::string());

  RunDirectory run(control.run_dir.empty() ? (resuming ? run_dir_of(control.resume) : "runs/vit")
                                           : control.run_dir);
  const std::string metrics_path = run.file("metrics.csv");
  auto metrics = open_vit_metrics(metrics_path, resuming, state.global_step);
  std::string last_checkpoint = resuming ? reader->path() : "";
  reader.reset();

  auto save = [&] {
    const std::string path = run.checkpoint_path(state.file_epoch());
    // Checkpoints hold CPU tensors, so that any machine can read them.
    const bool on_cpu = device.is_cpu();
    if (!on_cpu) {
      model->to(torch::kCPU);
      move_optimizer_state(*optimizer, torch::kCPU);
    }
    write_vit_checkpoint(path, {settings, normalization, state}, model, optimizer.get());
    if (!on_cpu) {
      model->to(device);
      move_optimizer_state(*optimizer, device);
    }
    run.record_checkpoint(path);
    run.prune_checkpoints(control.keep_last);
    result.checkpoints.push_back(path);
    last_checkpoint = path;
    spdlog::info("checkpoint {}", path);
  };

  const double wall_before = state.wall_s;
  double train_seconds = 0;
  std::int64_t images_trained = 0;
  result.test_accuracy = state.test_accuracy >= 0 ? state.test_accuracy : NAN;
  bool stop = false;
  for (std::int64_t epoch = state.completed_epochs + 1; epoch <= settings.epochs && !stop; ++epoch) {
    train_loader.start_epoch(epoch);
    for (std::int64_t i = 0; i < state.step_in_epoch; ++i) (void)train_loader.next();  // resumed epoch
    model->train();
    util::ProgressOptions progress_options;
    progress_options.unit = "img";
    progress_options.initial = state.epoch_seen;
    util::ProgressBar bar(static_cast<std::int64_t>(train_set->size()),
                          "epoch " + std::to_string(epoch) + "/" + std::to_string(settings.epochs),
                          progress_options);
    double epoch_seconds = 0, window_loss = 0;
    std::int64_t epoch_images = 0, window_correct = 0, window_seen = 0;
    double lr = settings.lr;
    const int workers = device.is_cpu() ? control.workers : 1;
    std::optional<ScopedIntraOpThreads> single_thread;  // for the epoch's steps, not its test
    // The progress line's fields: the epoch's mean loss and accuracy so far, the learning rate.
    auto epoch_fields = [&]() -> util::ProgressFields {
      const auto seen = static_cast<double>(state.epoch_seen);
      return {{"loss", number_text(state.epoch_loss_sum / seen, "%.4f")},
              {"acc", number_text(100.0 * static_cast<double>(state.epoch_correct) / seen, "%.1f%%")},
              {"lr", number_text(lr, "%.2e")}};
    };
    if (workers > 1) single_thread.emplace(1);
    while (auto batch = train_loader.next()) {
      const auto step_start = TrainClock::now();
      const auto images = batch->images.to(device);
      const auto labels = batch->labels.to(device);
      lr = schedule.at(state.global_step + 1);
      set_learning_rate(*optimizer, lr);
      // Forward and backward, in control.workers concurrent chunks of the batch.
      const double batch_images = static_cast<double>(images.size(0));
      const auto step = split_forward_backward(
          model->parameters(), images, labels, workers,
          [&](const torch::Tensor& x, const torch::Tensor& y, torch::Tensor* logits) {
            *logits = model(x);
            const auto chunk_loss = torch::nn::functional::cross_entropy(
                *logits, y, torch::nn::functional::CrossEntropyFuncOptions().label_smoothing(settings.label_smoothing));
            return chunk_loss * (static_cast<double>(x.size(0)) / batch_images);  // its share of the batch mean
          });
      const auto& logits = step.outputs;
      const double loss_value = step.loss;
      if (!std::isfinite(loss_value)) {
        bar.finish();
        throw TrainingDiverged("training diverged at epoch " + std::to_string(epoch) + " step " +
                               std::to_string(state.global_step + 1) + " (loss " + std::to_string(loss_value) +
                               "); last good checkpoint: " + (last_checkpoint.empty() ? "none" : last_checkpoint));
      }
      if (settings.optimizer.clip_grad_norm > 0) {
        torch::nn::utils::clip_grad_norm_(model->parameters(), settings.optimizer.clip_grad_norm);
      }
      optimizer->step();
      const auto n = labels.size(0);
      const auto correct = (logits.argmax(1) == labels).sum().item<std::int64_t>();
      epoch_seconds += seconds_since(step_start);
      epoch_images += n;
      state.global_step += 1;
      state.step_in_epoch += 1;
      state.epoch_loss_sum += loss_value * static_cast<double>(n);
      state.epoch_correct += correct;
      state.epoch_seen += n;
      window_loss += loss_value * static_cast<double>(n);
      window_correct += correct;
      window_seen += n;
      const double rate = epoch_seconds > 0 ? static_cast<double>(epoch_images) / epoch_seconds : 0;
      if (bar.due()) bar.update(state.epoch_seen, epoch_fields());
      if (control.log_every > 0 && state.global_step % control.log_every == 0) {
        metrics->write_row({"step", std::to_string(epoch), std::to_string(state.global_step),
                            number_text(window_loss / static_cast<double>(window_seen)),
                            number_text(static_cast<double>(window_correct) / static_cast<double>(window_seen)), "",
                            number_text(lr), number_text(rate), number_text(wall_before + seconds_since(start), "%.1f")});
        window_loss = 0;
        window_correct = window_seen = 0;
      }
      if (control.max_iters > 0 && state.global_step >= control.max_iters) {
        result.stopped_by = "max-iters";
        stop = true;
      } else if (control.time_limit_s > 0 && seconds_since(start) >= control.time_limit_s) {
        result.stopped_by = "time-limit";
        stop = true;
      }
      if (stop) break;
    }
    single_thread.reset();
    bar.update(state.epoch_seen);
    // The epoch's final values, not the last ones drawn.
    bar.finish(state.epoch_seen > 0 ? epoch_fields() : util::ProgressFields{});
    train_seconds += epoch_seconds;
    images_trained += epoch_images;
    state.images_per_s = epoch_seconds > 0 ? static_cast<double>(epoch_images) / epoch_seconds : 0;
    state.train_loss = state.epoch_seen > 0 ? state.epoch_loss_sum / static_cast<double>(state.epoch_seen) : NAN;
    const double train_accuracy =
        state.epoch_seen > 0 ? static_cast<double>(state.epoch_correct) / static_cast<double>(state.epoch_seen) : NAN;
    state.wall_s = wall_before + seconds_since(start);
    result.final_loss = state.train_loss;
    const bool epoch_complete = state.step_in_epoch >= steps_per_epoch;
    if (epoch_complete) {
      const auto tested = predict(model, test_loader, device);
      state.test_accuracy = tested.accuracy();
      result.test_accuracy = state.test_accuracy;
      state.completed_epochs = epoch;
      state.step_in_epoch = 0;
      metrics->write_row({"epoch", std::to_string(epoch), std::to_string(state.global_step),
                          number_text(state.train_loss), number_text(train_accuracy), number_text(state.test_accuracy), number_text(lr),
                          number_text(state.images_per_s), number_text(state.wall_s, "%.1f")});
      spdlog::info("epoch {}/{}: train loss {:.4f}, train accuracy {:.2f}%, test loss {:.4f}, test accuracy "
                   "{:.2f}%, {:.0f} img/s, elapsed {}",
                   epoch, settings.epochs, state.train_loss, 100 * train_accuracy, tested.mean_loss,
                   100 * state.test_accuracy, state.images_per_s, util::format_duration(state.wall_s));
      state.epoch_loss_sum = 0;
      state.epoch_correct = state.epoch_seen = 0;
      write_vit_plots(metrics_path, run.path());
    }
    const bool last = stop || epoch == settings.epochs;
    if (last || (epoch_complete && control.checkpoint_every > 0 && epoch % control.checkpoint_every == 0)) {
      state.wall_s = wall_before + seconds_since(start);
      save();
    }
  }
  if (result.stopped_by.empty()) result.stopped_by = "epochs";
  result.epochs = state.completed_epochs;
  result.iterations = state.global_step;
  result.wall_s = seconds_since(start);
  result.images_per_s = train_seconds > 0 ? static_cast<double>(images_trained) / train_seconds : 0;
  spdlog::info("done ({}): {} epochs, {} steps, {:.0f} training img/s, wall {}", result.stopped_by,
               result.epochs, result.iterations, result.images_per_s, util::format_duration(result.wall_s));
  return result;
}

}  // namespace dls::train

// The shared training loop.
#include "dls/train/training_loop.h"

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <memory>
#include <optional>

#include <spdlog/spdlog.h>
#include <torch/torch.h>

#include "dls/checkpoint/checkpoint.h"
#include "dls/checkpoint/rng_state.h"
#include "dls/train/distributed.h"
#include "dls/train/grad_scaler.h"
#include "dls/train/gradient_buckets.h"
#include "dls/train/gradient_buffer.h"
#include "dls/train/optimizer.h"
#include "dls/train/run_directory.h"
#include "dls/train/run_identity.h"
#include "dls/train/stop_signals.h"
#include "dls/util/file_io.h"
#include "dls/util/progress.h"
#include "dls/util/runtime.h"
#include "dls/train/budgeted_schedule.h"
#include "metrics_file.h"
#include "run_selection.h"
#include "training_support.h"

namespace dls::train {

namespace {

// A metrics.csv row: `values` placed under their columns of `header`, the rest empty.
std::vector<std::string> metrics_row(const std::vector<std::string>& header, const MetricValues& values) {
  std::vector<std::string> row(header.size());
  for (const auto& [name, text] : values) {
    const auto it = std::find(header.begin(), header.end(), name);
    if (it != header.end()) row[static_cast<std::size_t>(it - header.begin())] = text;
  }
  return row;
}

double ratio(double numerator, double denominator) { return denominator > 0 ? numerator / denominator : NAN; }

// Everything one invocation of run_training keeps between steps.
class Loop {
 public:
  Loop(TrainingTask& task, LoopState state, const LoopOptions& options,
       std::unique_ptr<checkpoint::CheckpointReader> resume)
      : task_(task), state_(std::move(state)), options_(options),
        dist_(options.dist != nullptr ? options.dist : &single_),
        main_(dist_->is_main()),
        has_accuracy_(std::find(task.metrics_header().begin(), task.metrics_header().end(), "accuracy") !=
                      task.metrics_header().end()) {
    if (main_) {
      if (resume == nullptr) claim_run_directory(options_.run_dir, options_.overwrite);
      run_.emplace(options.run_dir);
      if (resume == nullptr && !options_.config_toml.empty()) {
        util::write_text_atomically(run_->file("config.toml"), options_.config_toml);
      }
      remove_stale_run_temporaries(*run_);
      run_id_ = start_run_identity(*run_, resume.get());
    }
    auto& model = task_.model();
    if (resume != nullptr) resume->load_module("model", model);
    model.to(options_.device);
    if (main_) selection_.emplace(options_.selection, model, resume.get());
    if (dist_->world_size() > 1) {
      // Rank 0's weights everywhere, then gradients that are views of one flat buffer, whose
      // buckets are summed over the ranks while backward runs (gradient_buckets.h).
      torch::NoGradGuard no_grad;
      std::vector<torch::Tensor> tensors = model.parameters();
      for (const auto& buffer : model.buffers()) tensors.push_back(buffer);
      dist_->broadcast(tensors);
      gradients_ = std::make_unique<GradientBuffer>(model.parameters());
      // Embedding tables are summed by the rows the batch touched.
      std::vector<torch::Tensor> tables;
      for (const auto& module : model.modules()) {
        if (const auto* embedding = module->as<torch::nn::EmbeddingImpl>()) tables.push_back(embedding->weight);
      }
      buckets_ = std::make_unique<GradientBuckets>(*gradients_, *dist_, options_.bucket_bytes, tables);
      if (main_) {
        spdlog::info("gradients: {:.1f} MB, {} embedding table{} summed by touched rows, the rest in {} all-reduce "
                     "bucket{}{}",
                     1e-6 * static_cast<double>(gradients_->flat().nbytes()), buckets_->tables_by_rows(),
                     buckets_->tables_by_rows() == 1 ? "" : "s", buckets_->bucket_count(),
                     buckets_->bucket_count() == 1 ? "" : "s",
                     options_.bucket_bytes > 0 ? " started while backward runs" : " after backward");
      }
    }
    optimizer_ = make_optimizer(model.parameters(), options_.optimizer, task_.schedule().base_lr);
    if (options_.precision == util::Precision::kFp16) scaler_ = std::make_unique<GradScaler>();
    if (main_ && options_.precision != util::Precision::kFp32) {
      spdlog::info("precision {}: forward passes under autocast; weights, gradients, optimizer state and loss in "
                   "fp32{}", util::precision_name(options_.precision), scaler_ ? ", loss scaling" : "");
    }
    if (resume != nullptr) {
      resume->load_optimizer("optimizer", *optimizer_);
      move_optimizer_state(*optimizer_, options_.device);
      checkpoint::restore_cpu_generator_state(resume->tensor("rng"));
      last_checkpoint_ = resume->path();
    }
    schedule_.emplace(task_.schedule(), options_.time_limit_s, task_.steps_per_epoch(), resume.get(), state_.wall_s,
                      main_);
    if (main_) {
      metrics_path_ = run_->file("metrics.csv");
      metrics_ = open_metrics(metrics_path_, task_.metrics_header(), resume != nullptr, state_.global_step, 2);
      step_losses_ = open_metrics(step_loss_path(metrics_path_), step_loss_header(), resume != nullptr,
                                  state_.global_step, 0);
    }
    resume.reset();  // before training: it holds the whole file
    result_.world_size = dist_->world_size();
    result_.rank = dist_->rank();
    result_.backend = dist_->backend();
  }

  LoopResult run() {
    const double wall_before = state_.wall_s;
    wall_before_ = wall_before;
    bool stop = options_.max_iters > 0 && state_.global_step >= options_.max_iters;
    for (std::int64_t epoch = state_.completed_epochs + 1; epoch <= options_.epochs && !stop; ++epoch) {
      verdict_ = {};
      stop = train_epoch(epoch);
      const bool epoch_complete = state_.step_in_epoch == 0 && state_.completed_epochs == epoch;
      if (verdict_.out_of_patience && !stop) {
        result_.stopped_by = "patience";
        stop = true;
      }
      const bool last = stop || epoch == options_.epochs;
      state_.wall_s = wall_now();
      if (last || (epoch_complete && options_.checkpoint_every > 0 && epoch % options_.checkpoint_every == 0)) {
        save();
      } else if (verdict_.improved) {
        save_best_only();
      }
    }
    if (interrupted_by_ != 0) {
      throw TrainingInterrupted("stopped by " + signal_name(interrupted_by_) + " after step " +
                                    std::to_string(state_.global_step) + "; last checkpoint: " + last_good(),
                                interrupted_by_);
    }
    if (result_.stopped_by.empty()) result_.stopped_by = "epochs";
    result_.epochs = state_.completed_epochs;
    result_.iterations = state_.global_step;
    result_.examples_per_s = train_seconds_ > 0 ? static_cast<double>(examples_trained_) / train_seconds_ : 0;
    result_.all_reduce_s = all_reduces_ > 0 ? all_reduce_seconds_ / static_cast<double>(all_reduces_) : 0;
    if (main_) task_.finish(run_->path());
    result_.wall_s = seconds_since(options_.started);
    const std::string all_reduce =
        all_reduces_ > 0
            ? fmt::format(", {} processes, waiting {:.1f} ms per step for the gradient all-reduce ({:.1f} of {} "
                          "buckets started during backward, {:.0f} of {} embedding rows summed)",
                          dist_->world_size(), 1000 * result_.all_reduce_s,
                          static_cast<double>(buckets_overlapped_) / static_cast<double>(all_reduces_),
                          buckets_->bucket_count(),
                          static_cast<double>(table_rows_reduced_) / static_cast<double>(all_reduces_),
                          buckets_->table_rows())
            : std::string();
    spdlog::info("done ({}): {} epochs, {} steps, {:.0f} training {}/s{}{}, wall {}", result_.stopped_by,
                 result_.epochs, result_.iterations, result_.examples_per_s, task_.example_unit(), all_reduce,
                 schedule_->summary(), util::format_duration(result_.wall_s));
    return result_;
  }

 private:
  double wall_now() const { return wall_before_ + seconds_since(options_.started); }

  // The progress line's fields: the epoch's mean loss (and accuracy) so far, the learning rate.
  util::ProgressFields epoch_fields() const {
    util::ProgressFields fields{{"loss", number_text(ratio(state_.epoch_loss_sum, state_.epoch_loss_weight), "%.4f")}};
    if (has_accuracy_) {
      fields.emplace_back("acc", number_text(100.0 * ratio(static_cast<double>(state_.epoch_correct),
                                                            static_cast<double>(state_.epoch_examples)), "%.1f%%"));
    }
    fields.emplace_back("lr", number_text(lr_, "%.2e"));
    return fields;
  }

  // Trains the rest of `epoch`; true when a limit stopped it.
  bool train_epoch(std::int64_t epoch) {
    const std::string epochs = std::to_string(options_.epochs);
    task_.start_epoch(epoch, state_.step_in_epoch, {dist_->rank(), dist_->world_size()});
    task_.model().train();
    util::ProgressOptions bar_options;
    bar_options.unit = task_.example_unit();
    bar_options.initial = state_.epoch_examples;
    std::optional<util::ProgressBar> bar;  // rank 0's
    // The progress line is info-level output: quiet at --log-level warn and above.
    if (main_ && spdlog::should_log(spdlog::level::info)) bar.emplace(task_.examples_per_epoch(), "epoch " + std::to_string(epoch) + "/" + epochs, bar_options);
    const int workers = options_.device.is_cpu() ? std::max(1, options_.workers) : 1;
    double epoch_seconds = 0, window_loss = 0, window_weight = 0;
    std::int64_t epoch_examples = 0, window_correct = 0, window_examples = 0;
    bool stop = false;
    {
      std::optional<ScopedIntraOpThreads> single_thread;  // for the epoch's steps, not its evaluation
      if (workers > 1) single_thread.emplace(1);
      while (auto cpu_batch = task_.next_batch()) {
        const auto step_start = TrainClock::now();
        double started_s = wall_now();
        const TrainingBatch batch{cpu_batch->inputs.to(options_.device), cpu_batch->targets.to(options_.device),
                                  cpu_batch->global_rows};
        lr_ = schedule_->at(state_.global_step + 1);
        set_learning_rate(*optimizer_, lr_);
        auto [loss, correct] = forward_backward(batch, workers);
        // The gradient buckets' all-reduces (started during backward) finished, one all-reduce
        // of the step's numbers; the stop flag is rank 0's clock, so that every rank stops
        // after the same step.
        double ended_s = wall_now();
        const bool out_of_time = schedule_->out_of_time(ended_s);
        bool time_up = out_of_time;
        int signal = StopSignals::received();
        if (dist_->world_size() > 1) {
          all_reduce_seconds_ += buckets_->finish();
          buckets_overlapped_ += static_cast<std::int64_t>(buckets_->started_during_backward());
          table_rows_reduced_ += buckets_->rows_reduced();
          all_reduces_ += 1;
          const auto sums = dist_->all_reduce_sum({loss, static_cast<double>(correct), main_ && out_of_time ? 1.0 : 0.0,
                                                   signal != 0 ? 1.0 : 0.0, main_ ? started_s : 0.0,
                                                   main_ ? ended_s : 0.0});
          loss = sums[0];
          correct = static_cast<std::int64_t>(std::llround(sums[1]));
          time_up = sums[2] > 0;
          if (signal == 0 && sums[3] > 0) signal = SIGTERM;  // another rank's
          started_s = sums[4];  // rank 0's clock lays out everyone's schedule
          ended_s = sums[5];
        }
        if (!std::isfinite(loss)) {
          if (bar) bar->finish();
          throw TrainingDiverged("training diverged at epoch " + std::to_string(epoch) + " step " +
                                 std::to_string(state_.global_step + 1) + " (loss " + std::to_string(loss) +
                                 "); last good checkpoint: " + last_good());
        }
        if (take_step()) {
          if (options_.optimizer.clip_grad_norm > 0) {
            torch::nn::utils::clip_grad_norm_(task_.model().parameters(), options_.optimizer.clip_grad_norm);
          }
          optimizer_->step();
          if (selection_) selection_->after_step();  // --ema-decay: only after a step taken
        }
        const auto n = batch.global_rows;
        const double weight = task_.loss_weight(batch);
        epoch_seconds += seconds_since(step_start);
        epoch_examples += n;
        state_.global_step += 1;
        state_.step_in_epoch += 1;
        schedule_->step_done(state_.global_step, started_s, ended_s);
        state_.epoch_loss_sum += loss * weight;
        state_.epoch_loss_weight += weight;
        state_.epoch_examples += n;
        state_.epoch_correct += correct;
        window_loss += loss * weight;
        window_weight += weight;
        if (main_) step_losses_->write_row({std::to_string(state_.global_step), number_text(loss)});
        window_correct += correct;
        window_examples += n;
        if (bar && bar->due()) bar->update(state_.epoch_examples, epoch_fields());
        if (main_ && options_.log_every > 0 && state_.global_step % options_.log_every == 0) {
          const double elapsed = wall_now();
          const double window_mean = window_loss / window_weight;
          if (bar) bar->clear_line();
          spdlog::info("[epoch: {}/{}  iter: {:4d}  elapsed_time: {:4.0f} secs]  loss: {:.4f}", epoch, epochs,
                       state_.step_in_epoch, elapsed, window_mean);
          MetricValues row{{"kind", "step"}, {"epoch", std::to_string(epoch)},
                           {"step", std::to_string(state_.global_step)}, {"loss", number_text(window_mean)},
                           {"lr", number_text(lr_)},
                           {task_.rate_column(), number_text(ratio(static_cast<double>(epoch_examples), epoch_seconds))},
                           {"wall_s", number_text(elapsed, "%.1f")}};
          if (has_accuracy_) {
            row.emplace_back("accuracy", number_text(static_cast<double>(window_correct) /
                                                     static_cast<double>(window_examples)));
          }
          metrics_->write_row(metrics_row(task_.metrics_header(), row));
          window_loss = window_weight = 0;
          window_correct = window_examples = 0;
        }
        if (options_.max_iters > 0 && state_.global_step >= options_.max_iters) {
          result_.stopped_by = "max-iters";
          stop = true;
        } else if (time_up) {
          result_.stopped_by = "time-limit";
          stop = true;
        } else if (signal != 0) {
          result_.stopped_by = signal_name(signal);
          interrupted_by_ = signal;
          stop = true;
        }
        if (stop) break;
      }
    }
    if (bar) {
      bar->update(state_.epoch_examples);
      // The epoch's final values, not the last ones drawn.
      bar->finish(state_.epoch_examples > 0 ? epoch_fields() : util::ProgressFields{});
    }
    train_seconds_ += epoch_seconds;
    examples_trained_ += epoch_examples;
    state_.examples_per_s = epoch_seconds > 0 ? static_cast<double>(epoch_examples) / epoch_seconds : 0;
    state_.train_loss = ratio(state_.epoch_loss_sum, state_.epoch_loss_weight);
    state_.wall_s = wall_now();
    result_.final_loss = state_.train_loss;
    if (state_.step_in_epoch >= task_.steps_per_epoch()) end_epoch(epoch);
    return stop;
  }

  // Whether the optimizer steps on the gradients backward left: always, except under fp16
  // loss scaling, which first divides them by the scale and skips a step with an inf or NaN.
  bool take_step() {
    if (!scaler_) return true;
    const bool finite = scaler_->unscale(task_.model().parameters());
    scaler_->update(finite);
    if (!finite && main_) {
      spdlog::debug("step {}: gradients not finite, step skipped, loss scale now {}", state_.global_step + 1,
                    scaler_->scale());
    }
    return finite;
  }

  // Forward and backward of this process's share of a batch: `workers` concurrent chunks,
  // in options_.accum_steps consecutive micro-batches whose gradients add up. Returns the
  // share's loss (its part of the global batch's) and its correct predictions.
  std::pair<double, std::int64_t> forward_backward(const TrainingBatch& batch, int workers) {
    const auto parameters = task_.model().parameters();
    const auto task_loss = task_.loss_share(batch);
    // Autocast covers the forward pass and the loss; backward follows the dtypes it chose.
    const auto autocast = util::autocast_for(options_.precision, options_.device);
    const double scale = scaler_ ? scaler_->scale() : 1.0;
    const ChunkLossFn loss_fn = [&](const torch::Tensor& inputs, const torch::Tensor& targets, torch::Tensor* outputs) {
      const util::AutocastScope precision(autocast);
      const auto loss = task_loss(inputs, targets, outputs);
      return scaler_ ? scaler_->scale_loss(loss) : loss;
    };
    const std::int64_t rows = batch.inputs.size(0);
    if (rows == 0) {  // a last global batch with fewer rows than ranks: zeros into the all-reduce
      if (gradients_) gradients_->zero();
      return {0.0, 0};
    }
    const std::int64_t micro = std::max<std::int64_t>(1, std::min<std::int64_t>(options_.accum_steps, rows));
    double loss = 0;
    std::int64_t correct = 0;
    for (std::int64_t k = 0; k < micro; ++k) {
      const std::int64_t begin = k * rows / micro, end = (k + 1) * rows / micro;
      const TrainingBatch part{batch.inputs.slice(0, begin, end), batch.targets.slice(0, begin, end), batch.global_rows};
      // The first micro-batch sets the gradients (into the all-reduce buffer's views when
      // there is one), the others add to them.
      const auto output = k > 0 ? GradientOutput::kAccumulate
                          : gradients_ ? GradientOutput::kIntoExisting : GradientOutput::kReplace;
      if (buckets_ && k == micro - 1) buckets_->arm();  // the backward that completes the gradients
      const auto step = split_forward_backward(parameters, part.inputs, part.targets, workers, loss_fn, output);
      loss += step.loss / scale;
      if (has_accuracy_) correct += task_.correct_predictions(part, step.outputs).value_or(0);
    }
    return {loss, correct};
  }

  // Evaluation (rank 0; the others wait), the epoch's metrics row, log line and plots.
  void end_epoch(std::int64_t epoch) {
    const double train_accuracy =
        ratio(static_cast<double>(state_.epoch_correct), static_cast<double>(state_.epoch_examples));
    EpochEvaluation evaluation;
    RunSelection::Verdict verdict;
    if (main_) {
      {
        const util::AutocastScope precision(util::autocast_for(options_.precision, options_.device));
        const auto weights = selection_->evaluation_weights();  // --ema-decay: the average
        evaluation = task_.evaluate(options_.device.is_cpu() ? std::max(1, options_.workers) : 1);
      }
      if (std::isfinite(evaluation.loss)) verdict = selection_->judge(epoch, evaluation);
    }
    // Rank 0's verdicts reach every rank (and wait for its evaluation).
    const auto verdicts = dist_->all_reduce_sum({main_ && !std::isfinite(evaluation.loss) ? 1.0 : 0.0,
                                                 verdict.improved ? 1.0 : 0.0, verdict.out_of_patience ? 1.0 : 0.0});
    const bool diverged = verdicts[0] > 0;
    verdict_ = {verdicts[1] > 0, verdicts[2] > 0};
    if (diverged) {
      throw TrainingDiverged("training diverged at epoch " + std::to_string(epoch) + " (evaluation loss " +
                             (main_ ? std::to_string(evaluation.loss) : std::string("not finite")) +
                             "); last good checkpoint: " + last_good());
    }
    state_.completed_epochs = epoch;
    state_.step_in_epoch = 0;
    state_.wall_s = wall_now();
    if (!main_) {
      state_.epoch_loss_sum = state_.epoch_loss_weight = 0;
      state_.epoch_examples = state_.epoch_correct = 0;
      return;
    }
    MetricValues row{{"kind", "epoch"}, {"epoch", std::to_string(epoch)}, {"step", std::to_string(state_.global_step)},
                     {"loss", number_text(state_.train_loss)}, {"lr", number_text(lr_)},
                     {task_.rate_column(), number_text(state_.examples_per_s)},
                     {"wall_s", number_text(state_.wall_s, "%.1f")}};
    if (has_accuracy_) row.emplace_back("accuracy", number_text(train_accuracy));
    row.insert(row.end(), evaluation.metrics.begin(), evaluation.metrics.end());
    metrics_->write_row(metrics_row(task_.metrics_header(), row));
    const std::string accuracy_text =
        has_accuracy_ ? fmt::format(", train accuracy {:.2f}%", 100 * train_accuracy) : std::string();
    spdlog::info("epoch {}/{}: train loss {:.4f}{}, {}, {:.0f} {}/s, elapsed {}", epoch, options_.epochs,
                 state_.train_loss, accuracy_text, evaluation.summary, state_.examples_per_s,
                 task_.example_unit(), util::format_duration(state_.wall_s));
    state_.epoch_loss_sum = state_.epoch_loss_weight = 0;
    state_.epoch_examples = state_.epoch_correct = 0;
    task_.write_plots(metrics_path_, run_->path());
  }

  std::string last_good() const { return last_checkpoint_.empty() ? "none" : last_checkpoint_; }

  // Weights that are not finite are never saved (a later --keep-last would prune good
  // checkpoints for them); the loss can stay finite while some weights are not. Every rank
  // holds the same weights, so every rank stops here alike.
  void check_finite_weights() {
    torch::NoGradGuard no_grad;
    for (const auto& item : task_.model().named_parameters()) {
      if (!torch::isfinite(item.value()).all().item<bool>()) {
        throw TrainingDiverged("training diverged by step " + std::to_string(state_.global_step) + ": parameter '" +
                               item.key() + "' is not finite; last good checkpoint: " + last_good());
      }
    }
  }

  // The epoch's checkpoint; best.pt links to it when the epoch bettered the best score.
  void save() {
    check_finite_weights();
    if (!main_) return;
    const std::string path = run_->checkpoint_path(state_.file_epoch());
    auto* best = selection_->best();
    if (verdict_.improved) best->set_source(std::filesystem::path(path).filename().string());
    write_checkpoint(path);
    if (verdict_.improved) {
      util::link_atomically(path, run_->file("best.pt"));
      announce_best();
    }
    run_->record_checkpoint(path);
    run_->prune_checkpoints(options_.keep_last, best != nullptr ? best->source() : "");
    result_.checkpoints.push_back(path);
    last_checkpoint_ = path;
    spdlog::info("checkpoint {}", path);
  }

  // An epoch that bettered the best score but has no checkpoint of its own: best.pt is
  // written directly (and --keep-last may prune the file the previous best.pt came from).
  void save_best_only() {
    check_finite_weights();
    if (!main_) return;
    auto* best = selection_->best();
    best->set_source("");
    write_checkpoint(run_->file("best.pt"));
    announce_best();
  }

  void announce_best() {
    const auto* best = selection_->best();
    spdlog::info("best checkpoint {} (validation {} {:.4f})", run_->file("best.pt"), best->metric(), best->best_value());
  }

  // Rank 0 writes the checkpoint of the current state (CPU tensors, so that any machine reads
  // it), with the world size that trained it.
  void write_checkpoint(const std::string& path) {
    auto& model = task_.model();
    const bool on_cpu = options_.device.is_cpu();
    if (!on_cpu) {
      model.to(torch::kCPU);
      move_optimizer_state(*optimizer_, torch::kCPU);
    }
    checkpoint::CheckpointWriter writer(task_.checkpoint_kind());
    task_.describe_checkpoint(writer, state_);
    writer.add_module("model", model);
    selection_->describe(writer);  // the moving average, the best score
    schedule_->describe(writer);   // --time-limit: the budget and the schedule's end
    writer.add_optimizer("optimizer", *optimizer_);
    writer.add_tensor("rng", checkpoint::cpu_generator_state());
    writer.add_text(kRunIdText, run_id_);
    writer.add_text("distributed", "world_size=" + std::to_string(dist_->world_size()) + "\nbackend=" +
                                       dist_->backend() + "\n");
    writer.save(path);
    if (!on_cpu) {
      model.to(options_.device);
      move_optimizer_state(*optimizer_, options_.device);
    }
  }

  TrainingTask& task_;
  LoopState state_;
  const LoopOptions& options_;
  DistributedContext single_;       // this process alone, when options_.dist is null
  DistributedContext* dist_;
  bool main_;                       // rank 0: evaluates, logs progress, writes the run's files
  std::optional<RunDirectory> run_; // rank 0's
  std::string run_id_;              // rank 0's: the run's fingerprint, in every checkpoint
  bool has_accuracy_;
  std::unique_ptr<GradientBuffer> gradients_;  // in a process group: the all-reduced gradients
  std::unique_ptr<GradientBuckets> buckets_;   // and their all-reduces, overlapping backward
  std::unique_ptr<torch::optim::Optimizer> optimizer_;
  std::unique_ptr<GradScaler> scaler_;  // --precision fp16
  std::optional<BudgetedSchedule> schedule_;  // the task's, laid out over --time-limit
  std::string metrics_path_;
  std::unique_ptr<util::CsvWriter> metrics_;
  std::unique_ptr<util::CsvWriter> step_losses_;  // loss_steps.csv: every step's loss, for the plot
  std::string last_checkpoint_;
  std::optional<RunSelection> selection_;  // rank 0's: best.pt, patience, moving average
  RunSelection::Verdict verdict_;          // of this epoch's evaluation, on every rank
  LoopResult result_;
  double wall_before_ = 0;
  double lr_ = 0;
  double train_seconds_ = 0;
  std::int64_t examples_trained_ = 0;
  double all_reduce_seconds_ = 0;
  std::int64_t all_reduces_ = 0;
  std::int64_t buckets_overlapped_ = 0;  // Σ over steps of buckets started during backward
  std::int64_t table_rows_reduced_ = 0;  // Σ over steps of embedding rows summed
  StopSignals stop_signals_;        // SIGINT/SIGTERM: stop at the next step boundary
  int interrupted_by_ = 0;          // the signal that stopped this invocation
};

}  // namespace

void claim_run_directory(const std::string& run_dir, bool overwrite) {
  const std::string earlier = earlier_run(run_dir);
  if (earlier.empty()) return;
  if (!overwrite) {
    throw std::runtime_error(run_dir + " already holds a training run (" + earlier + "): continue it with --resume " +
                             run_dir + ", choose another --run-dir, or give --overwrite to move it aside");
  }
  const auto aside = move_run_aside(run_dir);
  spdlog::warn("moved the earlier run in {} aside to {}", run_dir, aside);
}

LoopResult run_training(TrainingTask& task, LoopState state, const LoopOptions& options,
                        std::unique_ptr<checkpoint::CheckpointReader> resume) {
  return Loop(task, std::move(state), options, std::move(resume)).run();
}

}  // namespace dls::train

// The shared training loop: one invocation of run_training -- resume, the epochs and their
// steps, the schedule, limits and signals, the divergence checks, the progress line and the
// end-of-epoch evaluation. Beside it: the step itself (training_step.h), the checkpoints
// (checkpoint_policy.h), metrics.csv and the log lines (training_log.h).
#include "dls/train/training_loop.h"

#include <algorithm>
#include <cmath>
#include <csignal>
#include <filesystem>
#include <memory>
#include <optional>

#include <spdlog/spdlog.h>
#include <torch/torch.h>

#include "train/checkpoint_policy.h"
#include "dls/checkpoint/checkpoint.h"
#include "dls/checkpoint/rng_state.h"
#include "dls/util/thread_policy.h"
#include "dls/train/budgeted_schedule.h"
#include "dls/train/run_plots.h"
#include "dls/train/parallel/distributed.h"
#include "dls/train/optim/optimizer.h"
#include "dls/train/run/resumed_settings.h"
#include "dls/train/run/run_directory.h"
#include "dls/train/run/run_identity.h"
#include "dls/train/stop_signals.h"
#include "dls/util/file_io.h"
#include "dls/util/precision.h"
#include "dls/util/progress.h"
#include "train/metrics_file.h"
#include "train/run_selection.h"
#include "train/training_log.h"
#include "train/training_step.h"
#include "train/training_support.h"

namespace dls::train {

namespace {

// Everything one invocation of run_training keeps between steps.
class Loop {
 public:
  Loop(TrainingTask& task, RunState state, const LoopOptions& options,
       std::unique_ptr<checkpoint::CheckpointReader> resume)
      : task_(task),
        state_(std::move(state)),
        options_(options),
        dist_(options.dist != nullptr ? options.dist : &single_),
        main_(dist_->is_main()),
        has_accuracy_(reports_accuracy(task)) {
    if (resume != nullptr) state_ = task_.resumed_state(std::move(state_));
    state_.steps_per_epoch = task_.steps_per_epoch();  // saved, for the fraction of an epoch a checkpoint is at
    std::string run_id;                                // rank 0's: the run's fingerprint, in every checkpoint
    if (main_) {
      const bool branch = resume != nullptr && !options_.branch_of.empty();
      if (resume == nullptr) claim_run_directory(options_.run.run_dir, options_.run.overwrite);
      run_.emplace(options.run.run_dir);
      if ((resume == nullptr || branch) && !options_.run.config_toml.empty()) {
        util::write_text_atomically(run_->file("config.toml"), options_.run.config_toml);
      } else if (resume != nullptr) {
        const auto at = "at step " + std::to_string(state_.global_step) + " (epoch " +
                        std::to_string(state_.completed_epochs) + ")";
        const auto changes = record_resumed_settings(run_->path(), options_.run.config_toml, at);
        std::string listed;
        for (const auto& change : changes) listed += (listed.empty() ? "" : ", ") + change;
        if (!changes.empty())
          spdlog::info("this resume changes the run's settings: {} ({})", listed, run_->file(kResumedConfigFile));
      }
      remove_stale_run_temporaries(*run_);
      run_id = start_run_identity(*run_, resume.get());
      if (branch) copy_metrics_of_branched_run();  // after the identity check, which sees a fresh directory
    }
    auto& model = task_.model();
    if (resume != nullptr) resume->load_module("model", model);
    model.to(options_.device);
    if (main_) selection_.emplace(options_.selection, model, resume.get());
    step_.emplace(task_, options_, *dist_, resume.get());
    if (resume != nullptr) checkpoint::restore_cpu_generator_state(resume->tensor("rng"));
    schedule_.emplace(task_.schedule(), options_.run.time_limit_s, task_.steps_per_epoch(), resume.get(), state_.wall_s,
                      main_);
    checkpoints_.emplace(task_, options_, *dist_, run_ ? &*run_ : nullptr, selection_ ? &*selection_ : nullptr,
                         *schedule_, step_->optimizer(), std::move(run_id),
                         resume != nullptr ? resume->path() : std::string());
    if (main_) {
      log_.emplace(task_, run_->file("metrics.csv"), options_.epochs, resume != nullptr, state_.global_step,
                   options_.run.tensorboard ? run_->file("tensorboard") : std::string(), state_.wall_s);
      if (resume != nullptr) log_->restore_window(state_);
      save_learning_rate_plot();  // the plan, before the first step
      save_positional_encoding_picture();
      warn_of_a_long_warm_up();
    }
    resume.reset();  // before training: it holds the whole file
    result_.world_size = dist_->world_size();
    result_.rank = dist_->rank();
    result_.backend = dist_->backend();
  }

  LoopResult run() {
    wall_before_ = state_.wall_s;
    bool stop = options_.run.max_iters > 0 && state_.global_step >= options_.run.max_iters;
    if (stop) {  // a resume whose --max-iters the run has reached already
      result_.stopped_by = "max-iters";
      spdlog::warn("--max-iters {}: the run has made {} steps already, so this one trains none", options_.run.max_iters,
                   state_.global_step);
    } else if (state_.completed_epochs >= options_.epochs && main_) {  // a resume whose --epochs the run has done
      spdlog::warn(
          "--epochs {}: the run has done {} epochs already, so this one trains none (a larger --epochs goes on)",
          options_.epochs, state_.completed_epochs);
    }
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
      if (log_) log_->save_window(state_);
      if (last || (epoch_complete && options_.run.checkpoint_every > 0 && epoch % options_.run.checkpoint_every == 0)) {
        checkpoints_->save(state_, verdict_.improved);
      } else if (verdict_.improved) {
        checkpoints_->save_best_only(state_);
      }
    }
    if (interrupted_by_ != 0) {
      throw_interrupted(signal_of_another_rank_ ? "another rank's signal" : signal_name(interrupted_by_),
                        "step " + std::to_string(state_.global_step), interrupted_by_);
    }
    // Stopped mid-epoch (--max-iters, --time-limit): the last evaluation was of an earlier
    // epoch's weights. Evaluate the ones the run ends with (and its newest checkpoint holds),
    // so that the task's scores, hence the result, are theirs.
    if (main_ && state_.step_in_epoch > 0) evaluate_final_weights();
    if (result_.stopped_by.empty()) result_.stopped_by = "epochs";
    result_.epochs = state_.completed_epochs;
    result_.iterations = state_.global_step;
    result_.checkpoints = checkpoints_->written();
    result_.examples_per_s = train_seconds_ > 0 ? static_cast<double>(examples_trained_) / train_seconds_ : 0;
    result_.all_reduce_s = step_->mean_all_reduce_s();
    result_.training_step = step_->description();
    if (main_) {
      // The end-of-run printout and test score read the weights evaluation loads (--ema-decay:
      // the average), as every reader of the run's last checkpoint does.
      const auto weights = selection_->evaluation_weights();
      task_.finish(run_->path());
    }
    result_.wall_s = seconds_since(options_.started);
    if (const int late = StopSignals::received(); late != 0) {  // during the final evaluation or printout
      StopSignals::acknowledge();
      throw_interrupted(signal_name(late), "the run's last step (" + std::to_string(state_.global_step) + ")", late);
    }
    spdlog::info("done ({}): {} epochs, {} steps, {:.0f} training {}/s{}{}, wall {}", result_.stopped_by,
                 result_.epochs, result_.iterations, result_.examples_per_s, task_.example_unit(),
                 step_->all_reduce_summary(), schedule_->summary(), util::format_duration(result_.wall_s));
    if (main_ && step_->recording_failed()) spdlog::warn("training step: {}", result_.training_step);
    return result_;
  }

 private:
  double wall_now() const { return wall_before_ + seconds_since(options_.started); }

  // The progress line's fields: the epoch's mean loss (and accuracy) so far, the learning rate.
  util::ProgressFields epoch_fields() const {
    util::ProgressFields fields{{"loss", number_text(ratio(state_.epoch_loss_sum, state_.epoch_loss_weight), "%.4f")}};
    if (has_accuracy_) {
      fields.emplace_back("acc", number_text(100.0 * ratio(static_cast<double>(state_.epoch_correct),
                                                           static_cast<double>(state_.epoch_examples)),
                                             "%.1f%%"));
    }
    fields.emplace_back("lr", number_text(lr_, "%.2e"));
    return fields;
  }

  // Trains the rest of `epoch`; true when a limit stopped it.
  bool train_epoch(std::int64_t epoch) {
    task_.start_epoch(epoch, state_.step_in_epoch, {dist_->rank(), dist_->world_size()});
    task_.model().train();
    if (log_ && state_.step_in_epoch == 0) log_->start_window();  // a resumed epoch keeps its saved window
    util::ProgressOptions bar_options;
    bar_options.unit = task_.example_unit();
    bar_options.initial = state_.epoch_examples;
    std::optional<util::ProgressBar> bar;  // rank 0's
    // The progress line is info-level output: quiet at --log-level warn and above.
    if (main_ && spdlog::should_log(spdlog::level::info)) {
      bar.emplace(task_.examples_per_epoch(), "epoch " + std::to_string(epoch) + "/" + std::to_string(options_.epochs),
                  bar_options);
    }
    const int workers = util::batch_chunk_workers(options_.device, options_.workers);
    // The training rate is wall-clock, on the clock of metrics.csv's wall_s: from the epoch's
    // first batch to its last loss read back (which waits for the device), batches, progress
    // and log rows included; the evaluation after it is not training.
    const double epoch_started = wall_now();
    std::int64_t epoch_examples = 0;
    bool stop = false;
    {
      std::optional<ScopedIntraOpThreads> single_thread;  // for the epoch's steps, not its evaluation
      if (workers > 1) single_thread.emplace(1);
      while (auto cpu_batch = task_.next_batch()) {
        double started_s = wall_now();
        const TrainingBatch batch{to_device(cpu_batch->inputs), to_device(cpu_batch->targets), cpu_batch->global_rows};
        lr_ = schedule_->at(state_.global_step + 1);
        set_learning_rate(step_->optimizer(), lr_);
        auto [loss, correct] = step_->forward_backward(batch, workers);
        // The gradient buckets' all-reduces (started during backward) finished, one all-reduce
        // of the step's numbers; the stop flag is rank 0's clock, so that every rank stops
        // after the same step.
        double ended_s = wall_now();
        const bool out_of_time = schedule_->out_of_time(ended_s);
        bool time_up = out_of_time;
        int signal = StopSignals::received();
        if (dist_->world_size() > 1) {
          // The all-reduce sums host numbers: the loss is read every step here.
          const auto sums =
              step_->all_reduce({loss.item<double>(), static_cast<double>(correct), main_ && out_of_time ? 1.0 : 0.0,
                                 signal != 0 ? 1.0 : 0.0, main_ ? started_s : 0.0, main_ ? ended_s : 0.0});
          loss = torch::full({}, sums[0], torch::kDouble);
          correct = static_cast<std::int64_t>(std::llround(sums[1]));
          time_up = sums[2] > 0;
          if (signal == 0 && sums[3] > 0) {
            // Another rank's -- unless this rank's own came during the all-reduce (a group's
            // Ctrl-C reaches every rank at about the same moment).
            signal = StopSignals::received();
            signal_of_another_rank_ = signal == 0;
            if (signal == 0) signal = SIGTERM;
          }
          started_s = sums[4];  // rank 0's clock lays out everyone's schedule
          ended_s = sums[5];
        }
        // --ema-decay: the moving average only after a step taken.
        if (step_->apply(state_.global_step + 1) && selection_) selection_->after_step();
        const auto n = batch.global_rows;
        epoch_examples += n;
        state_.global_step += 1;
        state_.step_in_epoch += 1;
        schedule_->step_done(state_.global_step, started_s, ended_s);
        state_.epoch_examples += n;
        state_.epoch_correct += correct;
        // The loss stays on the device until the progress line, a step row or the epoch's end
        // reads it (read_losses): no host synchronisation per step on a GPU.
        unread_.push_back({state_.global_step, std::move(loss), task_.loss_weight(batch), correct, n});
        if (bar && bar->due()) {
          read_losses(epoch);
          bar->update(state_.epoch_examples, epoch_fields());
        }
        if (log_ && options_.run.log_every > 0 && state_.global_step % options_.run.log_every == 0) {
          read_losses(epoch);
          const double elapsed = wall_now();
          if (bar) bar->clear_line();
          log_->write_step_row(epoch, state_, lr_, ratio(static_cast<double>(epoch_examples), elapsed - epoch_started),
                               elapsed);
        }
        if (options_.run.max_iters > 0 && state_.global_step >= options_.run.max_iters) {
          result_.stopped_by = "max-iters";
          stop = true;
        } else if (time_up) {
          result_.stopped_by = "time-limit";
          stop = true;
        } else if (signal != 0) {
          StopSignals::acknowledge();
          result_.stopped_by = signal_name(signal);
          interrupted_by_ = signal;
          stop = true;
        }
        if (stop) break;
      }
      read_losses(epoch, bar ? &*bar : nullptr);
    }
    const double epoch_seconds = wall_now() - epoch_started;
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

  // A batch tensor on the training device. On CUDA through pinned memory without waiting:
  // a copy from pageable memory would hold the host until the GPU has finished the steps
  // queued before it, and a small model's steps are short enough for that wait to matter.
  torch::Tensor to_device(const torch::Tensor& cpu) const {
    if (!options_.device.is_cuda()) return cpu.to(options_.device);
    return cpu.pin_memory().to(options_.device, /*non_blocking=*/true);
  }

  // A trained step whose loss the host has not read yet.
  struct UnreadLoss {
    std::int64_t global_step = 0;
    torch::Tensor loss;  // float64 scalar, on the device
    double weight = 0;   // the task's loss_weight
    std::int64_t correct = 0;
    std::int64_t examples = 0;
  };

  // Reads the losses of the steps trained since the last read in one transfer, in step
  // order: each into the epoch's sums and (rank 0) loss_steps.csv and the step row's means,
  // exactly as when each was read after its step. A loss not finite stops the run
  // (TrainingDiverged, naming its step; the optimizer steps taken after it are never saved).
  void read_losses(std::int64_t epoch, util::ProgressBar* bar = nullptr) {
    if (unread_.empty()) return;
    std::vector<torch::Tensor> losses;
    losses.reserve(unread_.size());
    for (const auto& u : unread_) losses.push_back(u.loss.to(torch::kCPU));
    const auto values = torch::stack(losses).contiguous();
    const double* value = values.data_ptr<double>();
    const auto steps = std::move(unread_);
    unread_.clear();
    for (std::size_t i = 0; i < steps.size(); ++i) {
      const auto& u = steps[i];
      const double loss = value[i];
      if (!std::isfinite(loss)) {
        if (bar) bar->finish();
        throw TrainingDiverged("training diverged at epoch " + std::to_string(epoch) + " step " +
                               std::to_string(u.global_step) + " (loss " + std::to_string(loss) +
                               "); last good checkpoint: " + checkpoints_->last_good());
      }
      state_.epoch_loss_sum += loss * u.weight;
      state_.epoch_loss_weight += u.weight;
      if (log_) log_->add_step(u.global_step, loss, u.weight, u.correct, u.examples);
    }
  }

  // Rank 0: the weights evaluation loads (--ema-decay: the average), evaluated once more;
  // logged and written as metrics.csv's "final" row at the fractional epoch, not judged
  // (no best.pt, patience: not an epoch's evaluation).
  void evaluate_final_weights() {
    EpochEvaluation evaluation;
    {
      const util::AutocastScope precision(util::autocast_for(options_.run.precision, options_.device));
      const auto weights = selection_->evaluation_weights();
      evaluation = task_.evaluate(util::batch_chunk_workers(options_.device, options_.workers));
    }
    spdlog::info("the final weights (step {}, mid-epoch): {}", state_.global_step, evaluation.summary);
    const double epoch = static_cast<double>(state_.completed_epochs) +
                         static_cast<double>(state_.step_in_epoch) / static_cast<double>(task_.steps_per_epoch());
    log_->write_final_row(epoch, state_, lr_, evaluation);
    task_.write_plots(log_->metrics_path(), run_->path());
  }

  // Evaluation (rank 0; the others wait), the epoch's metrics row, log line and plots.
  void end_epoch(std::int64_t epoch) {
    EpochEvaluation evaluation;
    RunSelection::Verdict verdict;
    if (main_) {
      {
        const util::AutocastScope precision(util::autocast_for(options_.run.precision, options_.device));
        const auto weights = selection_->evaluation_weights();  // --ema-decay: the average
        evaluation = task_.evaluate(util::batch_chunk_workers(options_.device, options_.workers));
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
                             "); last good checkpoint: " + checkpoints_->last_good());
    }
    state_.completed_epochs = epoch;
    state_.step_in_epoch = 0;
    state_.wall_s = wall_now();
    if (main_) log_->write_epoch_row(epoch, state_, lr_, evaluation);
    state_.epoch_loss_sum = state_.epoch_loss_weight = 0;
    state_.epoch_examples = state_.epoch_correct = 0;
    if (main_) {
      task_.write_plots(log_->metrics_path(), run_->path());
      save_learning_rate_plot();
    }
  }

  // A warm-up longer than half the run (a preset's on a small corpus) leaves the rate below
  // its peak for most or all of it: said once in the start-up lines, with the way out (an
  // info line: a run that asked for this is not at fault, and warnings are for faults).
  void warn_of_a_long_warm_up() const {
    const auto planned = task_.schedule();
    const auto total = options_.epochs * task_.steps_per_epoch();
    if (planned.kind == settings::ScheduleKind::kConstant || total <= 0 || 2 * planned.warmup_steps <= total) return;
    spdlog::info(
        "note: the learning-rate warm-up of {} steps is longer than half of this run's {} steps: the rate {} (see {}); "
        "a shorter warm-up suits a run this short (seq2seq_train --warmup, lm_train --warmup-steps, vit_train "
        "--warmup-epochs)",
        planned.warmup_steps, total,
        planned.warmup_steps >= total ? "never reaches its peak" : "peaks only late in the run",
        run_->file("learning_rate.png"));
  }

  // The model's sinusoidal table, drawn once (the lectures' picture of what the positions add).
  void save_positional_encoding_picture() const {
    const auto table = sinusoidal_encodings_of(task_.model());
    const auto path = run_->file("positional_encoding.png");
    if (!table.defined() || std::filesystem::exists(path)) return;
    try {
      positional_encoding_picture(table).save_png(path);
    } catch (const std::exception& error) {
      spdlog::warn("could not write {}: {}", path, error.what());
    }
  }

  // "[rank R: ]stopped by BY after WHEN; last checkpoint: FILE" (the checkpoint written).
  [[noreturn]] void throw_interrupted(const std::string& by, const std::string& when, int signal) const {
    const std::string rank = dist_->world_size() > 1 ? "rank " + std::to_string(dist_->rank()) + ": " : "";
    const std::string checkpoint =
        main_ ? "last checkpoint: " + checkpoints_->last_good() : "rank 0 writes the checkpoint";
    throw TrainingInterrupted(rank + "stopped by " + by + " after " + when + "; " + checkpoint, signal);
  }

  // A branch's directory begins with its source run's metrics.csv and loss_steps.csv; the
  // log then keeps their rows up to the checkpoint's step, as a resume in place keeps its own.
  void copy_metrics_of_branched_run() const {
    const auto metrics = run_->file("metrics.csv");
    for (const auto& target : {metrics, step_loss_path(metrics)}) {
      const auto source = std::filesystem::path(options_.branch_of) / std::filesystem::path(target).filename();
      std::error_code error;
      if (std::filesystem::exists(target, error) || !std::filesystem::is_regular_file(source, error)) continue;
      util::write_text_atomically(target, util::read_file(source.string()));
    }
  }

  void save_learning_rate_plot() const {
    save_run_plots(
        {learning_rate_plot(log_->metrics_path(), task_.schedule(), options_.epochs * task_.steps_per_epoch())},
        run_->path());
  }

  TrainingTask& task_;
  RunState state_;
  const LoopOptions& options_;
  DistributedContext single_;  // this process alone, when options_.dist is null
  DistributedContext* dist_;
  bool main_;                                    // rank 0: evaluates, logs progress, writes the run's files
  bool has_accuracy_;                            // the progress line shows the training accuracy
  std::optional<RunDirectory> run_;              // rank 0's
  std::optional<RunSelection> selection_;        // rank 0's: best.pt, patience, moving average
  std::optional<TrainingStep> step_;             // forward, backward, all-reduce, optimizer step
  std::optional<BudgetedSchedule> schedule_;     // the task's, laid out over --time-limit
  std::optional<CheckpointPolicy> checkpoints_;  // which to save, best.pt, --keep-last
  std::optional<TrainingLog> log_;               // rank 0's: metrics.csv, loss_steps.csv, log lines
  RunSelection::Verdict verdict_;                // of this epoch's evaluation, on every rank
  LoopResult result_;
  double wall_before_ = 0;
  double lr_ = 0;
  double train_seconds_ = 0;
  std::int64_t examples_trained_ = 0;
  std::vector<UnreadLoss> unread_;       // steps trained whose losses are still on the device
  StopSignals stop_signals_;             // SIGINT/SIGTERM/SIGHUP: stop at the next step boundary
  int interrupted_by_ = 0;               // the signal that stopped this invocation
  bool signal_of_another_rank_ = false;  // ... which reached another rank, not this one
};

}  // namespace

LoopResult run_training(TrainingTask& task, RunState state, const LoopOptions& options,
                        std::unique_ptr<checkpoint::CheckpointReader> resume) {
  return Loop(task, std::move(state), options, std::move(resume)).run();
}

}  // namespace dls::train

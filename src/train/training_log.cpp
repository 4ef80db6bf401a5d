#include "train/training_log.h"

#include <algorithm>
#include <utility>
#include <vector>

#include <spdlog/spdlog.h>

#include "dls/util/progress.h"
#include "train/metrics_file.h"
#include "train/training_support.h"

namespace dls::train {

TrainingLog::TrainingLog(const TrainingTask& task, std::string metrics_path, std::int64_t epochs, bool resume,
                         std::int64_t global_step)
    : task_(task), metrics_path_(std::move(metrics_path)), epochs_(epochs), has_accuracy_(reports_accuracy(task)) {
  metrics_ = open_metrics(metrics_path_, task_.metrics_header(), resume, global_step, 2);
  step_losses_ = open_metrics(step_loss_path(metrics_path_), step_loss_header(), resume, global_step, 0);
}

void TrainingLog::start_window() {
  window_loss_ = window_weight_ = 0;
  window_correct_ = window_examples_ = 0;
}

void TrainingLog::add_step(std::int64_t global_step, double loss, double weight, std::int64_t correct,
                           std::int64_t examples) {
  step_losses_->write_row({std::to_string(global_step), number_text(loss)});
  window_loss_ += loss * weight;
  window_weight_ += weight;
  window_correct_ += correct;
  window_examples_ += examples;
}

void TrainingLog::write_step_row(std::int64_t epoch, const LoopState& state, double lr, double examples_per_s,
                                 double wall_s) {
  const double window_mean = window_loss_ / window_weight_;
  spdlog::info("[epoch: {}/{}  iter: {:4d}  elapsed_time: {:4.0f} secs]  loss: {:.4f}", epoch, epochs_,
               state.step_in_epoch, wall_s, window_mean);
  MetricValues row{{"kind", "step"},
                   {"epoch", std::to_string(epoch)},
                   {"step", std::to_string(state.global_step)},
                   {"loss", number_text(window_mean)},
                   {"lr", number_text(lr)},
                   {task_.rate_column(), number_text(examples_per_s)},
                   {"wall_s", number_text(wall_s, "%.1f")}};
  if (has_accuracy_) {
    row.emplace_back("accuracy",
                     number_text(static_cast<double>(window_correct_) / static_cast<double>(window_examples_)));
  }
  write_metrics_row(row);
  start_window();
}

void TrainingLog::write_epoch_row(std::int64_t epoch, const LoopState& state, double lr,
                                  const EpochEvaluation& evaluation) {
  const double train_accuracy =
      ratio(static_cast<double>(state.epoch_correct), static_cast<double>(state.epoch_examples));
  MetricValues row{{"kind", "epoch"},
                   {"epoch", std::to_string(epoch)},
                   {"step", std::to_string(state.global_step)},
                   {"loss", number_text(state.train_loss)},
                   {"lr", number_text(lr)},
                   {task_.rate_column(), number_text(state.examples_per_s)},
                   {"wall_s", number_text(state.wall_s, "%.1f")}};
  if (has_accuracy_) row.emplace_back("accuracy", number_text(train_accuracy));
  row.insert(row.end(), evaluation.metrics.begin(), evaluation.metrics.end());
  write_metrics_row(row);
  const std::string accuracy_text =
      has_accuracy_ ? fmt::format(", train accuracy {:.2f}%", 100 * train_accuracy) : std::string();
  spdlog::info("epoch {}/{}: train loss {:.4f}{}, {}, {:.0f} {}/s, elapsed {}", epoch, epochs_, state.train_loss,
               accuracy_text, evaluation.summary, state.examples_per_s, task_.example_unit(),
               util::format_duration(state.wall_s));
}

void TrainingLog::write_metrics_row(const MetricValues& values) {
  const auto& header = task_.metrics_header();
  std::vector<std::string> row(header.size());
  for (const auto& [name, text] : values) {
    const auto it = std::find(header.begin(), header.end(), name);
    if (it != header.end()) row[static_cast<std::size_t>(it - header.begin())] = text;
  }
  metrics_->write_row(row);
}

}  // namespace dls::train

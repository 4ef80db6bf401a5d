#include "train/training_log.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <utility>
#include <vector>

#include <spdlog/spdlog.h>

#include "dls/util/file_io.h"
#include "dls/util/progress.h"
#include "train/metrics_file.h"
#include "train/training_support.h"

namespace dls::train {

namespace {

double unix_now() { return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count(); }

// A metrics row as TensorBoard scalars: a step row's numbers under "train/", an epoch or
// final row's under "epoch/" (both evaluations of the weights at that step), all at the
// row's step and at `wall_origin` + its wall_s. Kind, epoch, step and wall_s are the axes.
std::vector<util::ScalarEvent> scalars_of_row(const std::vector<std::string>& header,
                                              const std::vector<std::string>& row, double wall_origin) {
  const auto column = [&](const char* name) {
    const auto it = std::find(header.begin(), header.end(), name);
    return it == header.end() ? NAN : metric_number(row, static_cast<std::size_t>(it - header.begin()));
  };
  const double step = column("step"), wall_s = column("wall_s");
  std::vector<util::ScalarEvent> scalars;
  if (row.empty() || !std::isfinite(step)) return scalars;
  const std::string group = row[0] == "step" ? "train/" : "epoch/";
  for (std::size_t i = 1; i < header.size() && i < row.size(); ++i) {
    const auto& name = header[i];
    const double value = metric_number(row[i]);
    if (name == "epoch" || name == "step" || name == "wall_s" || !std::isfinite(value)) continue;
    scalars.push_back({group + name, static_cast<std::int64_t>(step),
                       wall_origin + (std::isfinite(wall_s) ? wall_s : 0.0), static_cast<float>(value)});
  }
  return scalars;
}

}  // namespace

TrainingLog::TrainingLog(const TrainingTask& task, std::string metrics_path, std::int64_t epochs, bool resume,
                         std::int64_t global_step, const std::string& tensorboard_dir, double run_wall_s)
    : task_(task), metrics_path_(std::move(metrics_path)), epochs_(epochs), has_accuracy_(reports_accuracy(task)) {
  metrics_ = open_metrics(metrics_path_, task_.metrics_header(), resume, global_step, 2);
  step_losses_ = open_metrics(step_loss_path(metrics_path_), step_loss_header(), resume, global_step, 0);
  if (!tensorboard_dir.empty()) {
    // The file is a function of metrics.csv: a resumed run's holds no step after its checkpoint.
    wall_origin_ = unix_now() - run_wall_s;
    std::vector<util::ScalarEvent> scalars;
    const auto rows = read_metrics_rows(metrics_path_);
    for (std::size_t i = 1; i < rows.size(); ++i) {
      const auto row = scalars_of_row(task_.metrics_header(), rows[i], wall_origin_);
      scalars.insert(scalars.end(), row.begin(), row.end());
    }
    std::filesystem::create_directories(tensorboard_dir);
    const auto path = (std::filesystem::path(tensorboard_dir) / "events.out.tfevents.dls").string();
    util::write_text_atomically(path, util::event_file_bytes(wall_origin_, scalars));
    events_ = std::make_unique<util::EventFileAppender>(path);
  }
}

void TrainingLog::start_window() {
  window_loss_ = window_weight_ = 0;
  window_correct_ = window_examples_ = 0;
}

void TrainingLog::save_window(checkpoint::RunState& state) const {
  state.window_loss_sum = window_loss_;
  state.window_loss_weight = window_weight_;
  state.window_correct = window_correct_;
  state.window_examples = window_examples_;
}

void TrainingLog::restore_window(const checkpoint::RunState& state) {
  window_loss_ = state.window_loss_sum;
  window_weight_ = state.window_loss_weight;
  window_correct_ = state.window_correct;
  window_examples_ = state.window_examples;
}

void TrainingLog::add_step(std::int64_t global_step, double loss, double weight, std::int64_t correct,
                           std::int64_t examples) {
  step_losses_->write_row({std::to_string(global_step), number_text(loss)});
  window_loss_ += loss * weight;
  window_weight_ += weight;
  window_correct_ += correct;
  window_examples_ += examples;
}

void TrainingLog::write_step_row(std::int64_t epoch, const RunState& state, double lr, double examples_per_s,
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

void TrainingLog::write_epoch_row(std::int64_t epoch, const RunState& state, double lr,
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

void TrainingLog::write_final_row(double epoch, const RunState& state, double lr, const EpochEvaluation& evaluation) {
  MetricValues row{{"kind", "final"},
                   {"epoch", number_text(epoch, "%.3f")},
                   {"step", std::to_string(state.global_step)},
                   {"loss", number_text(state.train_loss)},
                   {"lr", number_text(lr)},
                   {task_.rate_column(), number_text(state.examples_per_s)},
                   {"wall_s", number_text(state.wall_s, "%.1f")}};
  if (has_accuracy_) {
    row.emplace_back("accuracy", number_text(ratio(static_cast<double>(state.epoch_correct),
                                                   static_cast<double>(state.epoch_examples))));
  }
  row.insert(row.end(), evaluation.metrics.begin(), evaluation.metrics.end());
  write_metrics_row(row);
}

void TrainingLog::write_metrics_row(const MetricValues& values) {
  const auto& header = task_.metrics_header();
  std::vector<std::string> row(header.size());
  for (const auto& [name, text] : values) {
    const auto it = std::find(header.begin(), header.end(), name);
    if (it != header.end()) row[static_cast<std::size_t>(it - header.begin())] = text;
  }
  metrics_->write_row(row);
  if (events_) events_->append(scalars_of_row(header, row, wall_origin_));
}

}  // namespace dls::train

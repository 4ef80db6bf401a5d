// The metrics.csv of a training run, shared by the trainers (private to src/train): read
// back for plots, and reopened on resume without the rows an interrupted run wrote after
// its last checkpoint.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "dls/util/csv.h"

namespace dls::train {

// Every complete record of the file (a last row cut off by a crash is left out).
std::vector<std::vector<std::string>> read_metrics_rows(const std::string& path);

// The number in a field; NaN for an empty or malformed one.
double metric_number(const std::string& text);

// Opens `path` with `header`. Fresh runs start a new file; resumed runs keep the header and
// the rows whose column `step_column` is at most `resume_step`, and append.
std::unique_ptr<util::CsvWriter> open_metrics(const std::string& path, const std::vector<std::string>& header,
                                              bool resume, std::int64_t resume_step, std::size_t step_column);

// The training loss of every optimizer step, in loss_steps.csv beside metrics.csv (columns
// step, loss), so that the loss plot is a curve even in a short run.
inline const std::vector<std::string>& step_loss_header() {
  static const std::vector<std::string> header = {"step", "loss"};
  return header;
}
std::string step_loss_path(const std::string& metrics_path);

// The training-loss curve to plot: loss_steps.csv beside `metrics_path` binned to at most
// `max_points` points (each the mean loss of a run of consecutive steps, at its mean step;
// non-finite losses left out), or, for a run without that file, the "step" rows of
// `metrics_rows` (metrics.csv read back; every task's columns 2 and 3 are step and loss).
struct LossCurve {
  std::vector<double> steps, losses;
};
LossCurve training_loss_curve(const std::string& metrics_path,
                              const std::vector<std::vector<std::string>>& metrics_rows, std::size_t max_points = 400);

}  // namespace dls::train

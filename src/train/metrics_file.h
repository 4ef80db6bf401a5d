// The metrics.csv of a training run, shared by the trainers (private to src/train): read
// back for plots, and reopened on resume without the rows an interrupted run wrote after
// its last checkpoint.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "dls/train/run_plots.h"
#include "dls/util/csv.h"

namespace dls::train {

// Every complete record of the file (a last row cut off by a crash is left out). `left_out`,
// when given, gets the number of lines after the last complete record: 1 for a row cut off,
// more when a quote opened there never closes (a file edited by hand).
std::vector<std::vector<std::string>> read_metrics_rows(const std::string& path, std::size_t* left_out = nullptr);

// An "epoch" row, or the "final" row of a run stopped mid-epoch: the rows with an evaluation.
inline bool is_evaluation_row(const std::vector<std::string>& row) {
  return !row.empty() && (row[0] == "epoch" || row[0] == "final");
}

// The number in a field; NaN for an empty or malformed one.
double metric_number(const std::string& text);
// A field that is not empty and not a whole number ("abc", "1.2x"; "nan" and "inf" are numbers).
bool is_malformed_number(const std::string& text);
// The number in column `column` of `row`; NaN when the row has no such column (a file
// written before the column was added).
double metric_number(const std::vector<std::string>& row, std::size_t column);
// Whether a column read back has a number: an older run's file may lack the column.
bool any_finite(const std::vector<double>& values);

// Opens `path` with `header`. Fresh runs start a new file; resumed runs keep the rows whose
// column `step_column` is at most `resume_step` (but a "final" row), and append. A resumed file whose header is
// the start of `header` (an older run's, before columns were appended) is rewritten under
// `header`, its rows given empty fields for the new columns, so that the file keeps one
// header; any other header is refused (util::CsvWriter).
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

// loss.png of a run: the training-loss curve above under `names.training`, and the held-out
// loss of every epoch (`held_out_losses` at `epoch_steps`; left out when none is finite)
// under `names.held_out`. No series when there are no training losses.
RunPlot loss_plot(const std::string& metrics_path, const std::vector<std::vector<std::string>>& metrics_rows,
                  const std::string& y_label, const LossSeriesNames& names, std::vector<double> epoch_steps,
                  std::vector<double> held_out_losses);

}  // namespace dls::train

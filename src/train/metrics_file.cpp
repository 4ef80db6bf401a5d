#include "train/metrics_file.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <string_view>

#include "dls/util/file_io.h"

namespace dls::train {

std::vector<std::vector<std::string>> read_metrics_rows(const std::string& path, std::size_t* left_out) {
  std::vector<std::vector<std::string>> rows;
  const std::string text = util::read_file(path);
  std::size_t pos = 0;
  bool complete = true;
  while (pos < text.size()) {
    const auto start = pos;
    auto record = util::parse_csv_record(text, &pos, &complete);
    if (!complete) {  // a row cut off by a crash
      if (left_out != nullptr) {
        const auto rest = std::string_view(text).substr(start);
        *left_out =
            static_cast<std::size_t>(std::count(rest.begin(), rest.end(), '\n')) + (rest.back() == '\n' ? 0 : 1);
      }
      break;
    }
    rows.push_back(std::move(record));
  }
  return rows;
}

namespace {

// Whether `text` is one whole number (strtod's: "nan" and "inf" too), written to `value`.
bool whole_number(const std::string& text, double* value) {
  char* end = nullptr;
  *value = std::strtod(text.c_str(), &end);
  return !text.empty() && end == text.c_str() + text.size();  // "1.2x" is no number
}

}  // namespace

double metric_number(const std::string& text) {
  double value = NAN;
  return whole_number(text, &value) ? value : NAN;
}

bool is_malformed_number(const std::string& text) {
  double value = NAN;
  return !text.empty() && !whole_number(text, &value);
}

double metric_number(const std::vector<std::string>& row, std::size_t column) {
  return column < row.size() ? metric_number(row[column]) : NAN;
}

bool any_finite(const std::vector<double>& values) {
  return std::any_of(values.begin(), values.end(), [](double v) { return std::isfinite(v); });
}

namespace {

// `old_header` names the first columns of `header`, and no more.
bool is_older_header(const std::vector<std::string>& old_header, const std::vector<std::string>& header) {
  return old_header.size() < header.size() && std::equal(old_header.begin(), old_header.end(), header.begin());
}

}  // namespace

std::unique_ptr<util::CsvWriter> open_metrics(const std::string& path, const std::vector<std::string>& header,
                                              bool resume, std::int64_t resume_step, std::size_t step_column) {
  using Mode = util::CsvWriter::Mode;
  if (resume && std::filesystem::exists(path)) {
    const auto rows = read_metrics_rows(path);
    const bool older = !rows.empty() && is_older_header(rows.front(), header);
    if (!rows.empty() && (rows.front() == header || older)) {
      std::string kept = util::csv_line(header);
      for (std::size_t i = 1; i < rows.size(); ++i) {
        // Rows after the checkpoint (or without a step) are dropped, and the evaluation a
        // stopped run ended with: the run goes on, and its epoch rows will say the rest.
        if (!(metric_number(rows[i], step_column) <= static_cast<double>(resume_step))) continue;
        if (!rows[i].empty() && rows[i][0] == "final") continue;
        auto row = rows[i];
        // An older run's row: the columns it had, then empty new ones.
        if (older && row.size() == rows.front().size()) row.resize(header.size());
        kept += util::csv_line(row);
      }
      util::write_text_atomically(path, kept);
    }
  }
  return std::make_unique<util::CsvWriter>(path, header, resume ? Mode::kAppend : Mode::kTruncate);
}

std::string step_loss_path(const std::string& metrics_path) {
  return (std::filesystem::path(metrics_path).parent_path() / "loss_steps.csv").string();
}

namespace {

LossCurve binned_step_losses(const std::string& path, std::size_t max_points) {
  std::vector<double> steps, losses;
  if (std::filesystem::exists(path)) {
    const auto rows = read_metrics_rows(path);
    for (std::size_t i = 1; i < rows.size(); ++i) {
      if (rows[i].size() != 2) continue;
      const double step = metric_number(rows[i][0]), loss = metric_number(rows[i][1]);
      if (std::isfinite(step) && std::isfinite(loss)) steps.push_back(step), losses.push_back(loss);
    }
  }
  LossCurve curve;
  if (steps.empty() || max_points == 0) return curve;
  // Bins of `per_bin` consecutive steps; the last one may be shorter.
  const std::size_t per_bin = (steps.size() + max_points - 1) / max_points;
  for (std::size_t begin = 0; begin < steps.size(); begin += per_bin) {
    const std::size_t end = std::min(begin + per_bin, steps.size());
    double step_sum = 0, loss_sum = 0;
    for (std::size_t i = begin; i < end; ++i) step_sum += steps[i], loss_sum += losses[i];
    curve.steps.push_back(step_sum / static_cast<double>(end - begin));
    curve.losses.push_back(loss_sum / static_cast<double>(end - begin));
  }
  return curve;
}

}  // namespace

LossCurve training_loss_curve(const std::string& metrics_path,
                              const std::vector<std::vector<std::string>>& metrics_rows, std::size_t max_points) {
  LossCurve curve = binned_step_losses(step_loss_path(metrics_path), max_points);
  if (!curve.steps.empty()) return curve;
  for (std::size_t i = 1; i < metrics_rows.size(); ++i) {
    const auto& r = metrics_rows[i];
    if (r.size() > 3 && r[0] == "step") {
      curve.steps.push_back(metric_number(r[2]));
      curve.losses.push_back(metric_number(r[3]));
    }
  }
  return curve;
}

RunPlot loss_plot(const std::string& metrics_path, const std::vector<std::vector<std::string>>& metrics_rows,
                  const std::string& y_label, const LossSeriesNames& names, std::vector<double> epoch_steps,
                  std::vector<double> held_out_losses) {
  RunPlot loss{"loss.png", util::LinePlot("Training loss")};
  auto [steps, losses] = training_loss_curve(metrics_path, metrics_rows);
  if (steps.empty()) return loss;
  loss.plot.x_label("step").y_label(y_label).add_series(names.training, std::move(steps), std::move(losses));
  // An older run's file may lack the held-out loss (the ViT's test_loss): no empty legend entry.
  if (any_finite(held_out_losses))
    loss.plot.add_series(names.held_out, std::move(epoch_steps), std::move(held_out_losses));
  return loss;
}

}  // namespace dls::train

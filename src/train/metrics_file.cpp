#include "train/metrics_file.h"

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "dls/util/file_io.h"

namespace dls::train {

std::vector<std::vector<std::string>> read_metrics_rows(const std::string& path) {
  std::vector<std::vector<std::string>> rows;
  const std::string text = util::read_file(path);
  std::size_t pos = 0;
  bool complete = true;
  while (pos < text.size()) {
    auto record = util::parse_csv_record(text, &pos, &complete);
    if (!complete) break;  // a row cut off by a crash
    rows.push_back(std::move(record));
  }
  return rows;
}

double metric_number(const std::string& text) {
  try {
    return text.empty() ? NAN : std::stod(text);
  } catch (const std::exception&) {
    return NAN;
  }
}

std::unique_ptr<util::CsvWriter> open_metrics(const std::string& path, const std::vector<std::string>& header,
                                              bool resume, std::int64_t resume_step, std::size_t step_column) {
  using Mode = util::CsvWriter::Mode;
  if (resume && std::filesystem::exists(path)) {
    const auto rows = read_metrics_rows(path);
    if (!rows.empty() && rows.front() == header) {
      std::string kept;
      for (std::size_t i = 0; i < rows.size(); ++i) {
        if (i == 0 ||
            (rows[i].size() > step_column && metric_number(rows[i][step_column]) <= static_cast<double>(resume_step))) {
          kept += util::csv_line(rows[i]);
        }
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

}  // namespace dls::train

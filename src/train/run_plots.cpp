#include "dls/train/run_plots.h"

#include <algorithm>
#include <filesystem>

#include <spdlog/spdlog.h>

#include "train/metrics_file.h"

namespace dls::train {

LossSeriesNames loss_series_names(double label_smoothing, const std::string& held_out) {
  if (!(label_smoothing > 0)) return {"training loss", held_out + " loss"};
  // The two curves measure different losses: the smoothed one stays above the NLL.
  return {fmt::format("training loss (label smoothing {:g})", label_smoothing), held_out + " loss (plain NLL)"};
}

RunPlot learning_rate_plot(const std::string& metrics_path, const settings::LrSchedule& planned,
                           std::int64_t total_steps) {
  constexpr std::int64_t kPoints = 400;  // of the planned curve: smooth at any run length
  RunPlot plot{"learning_rate.png", util::LinePlot("Learning rate")};
  plot.plot.x_label("optimizer step").y_label("learning rate");
  if (total_steps > 0) {
    std::vector<double> steps, rates;
    const auto stride = (total_steps + kPoints - 1) / kPoints;
    for (std::int64_t step = 1; step <= total_steps; step += stride) {
      steps.push_back(static_cast<double>(step));
      rates.push_back(planned.at(step));
    }
    if (static_cast<std::int64_t>(steps.back()) != total_steps) {
      steps.push_back(static_cast<double>(total_steps));
      rates.push_back(planned.at(total_steps));
    }
    plot.plot.add_series("planned (" + settings::to_string(planned.kind) + ")", std::move(steps), std::move(rates));
  }
  const auto rows =
      std::filesystem::exists(metrics_path) ? read_metrics_rows(metrics_path) : std::vector<std::vector<std::string>>{};
  if (!rows.empty()) {
    const auto& header = rows.front();
    const auto column = [&](const char* name) {
      return static_cast<std::size_t>(std::find(header.begin(), header.end(), name) - header.begin());
    };
    const auto kind = column("kind"), step = column("step"), lr = column("lr");
    std::vector<double> steps, rates;
    for (std::size_t i = 1; i < rows.size(); ++i) {
      const auto& r = rows[i];
      if (std::max({kind, step, lr}) >= r.size() || r[kind] != "step") continue;
      steps.push_back(metric_number(r[step]));
      rates.push_back(metric_number(r[lr]));
    }
    if (!steps.empty()) plot.plot.add_series("used (logged steps)", std::move(steps), std::move(rates));
  }
  return plot;
}

void save_run_plots(const std::vector<RunPlot>& plots, const std::string& run_dir) {
  const std::filesystem::path dir(run_dir);
  for (const auto& [file, plot] : plots) {
    if (plot.series().empty()) continue;
    try {
      plot.save((dir / file).string());
    } catch (const std::exception& error) {
      spdlog::warn("could not write {}: {}", file, error.what());
    }
  }
}

}  // namespace dls::train

#include "dls/train/run_plots.h"

#include <filesystem>

#include <spdlog/spdlog.h>

namespace dls::train {

LossSeriesNames loss_series_names(double label_smoothing, const std::string& held_out) {
  if (!(label_smoothing > 0)) return {"training loss", held_out + " loss"};
  // The two curves measure different losses: the smoothed one stays above the NLL.
  return {fmt::format("training loss (label smoothing {:g})", label_smoothing), held_out + " loss (plain NLL)"};
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

#include "train/tasks/lm_metrics.h"

#include <filesystem>

#include <spdlog/spdlog.h>

#include "dls/util/line_plot.h"
#include "train/metrics_file.h"

namespace dls::train {

const std::vector<std::string>& lm_metrics_header() {
  static const std::vector<std::string> header = {
      "kind", "epoch", "step", "loss", "lr", "sentences_per_s", "val_loss", "val_perplexity", "wall_s"};
  return header;
}

void write_lm_plots(const std::string& metrics_path, const std::string& run_dir) {
  std::vector<double> epoch_steps, val_losses, epochs, perplexities;
  const auto rows = read_metrics_rows(metrics_path);
  for (std::size_t i = 1; i < rows.size(); ++i) {
    const auto& r = rows[i];
    if (r.size() != lm_metrics_header().size()) continue;
    if (r[0] == "epoch" && !r[6].empty()) {
      epoch_steps.push_back(metric_number(r[2]));
      val_losses.push_back(metric_number(r[6]));
      epochs.push_back(metric_number(r[1]));
      perplexities.push_back(metric_number(r[7]));
    }
  }
  const auto [steps, losses] = training_loss_curve(metrics_path, rows);
  const std::filesystem::path dir(run_dir);
  try {
    if (!steps.empty()) {
      util::LinePlot plot("Training loss");
      plot.x_label("step").y_label("NLL per token").add_series("train", steps, losses);
      if (!epoch_steps.empty()) plot.add_series("validation", epoch_steps, val_losses);
      plot.save((dir / "loss.png").string());
    }
    if (!epochs.empty()) {
      util::LinePlot("Validation perplexity")
          .x_label("epoch")
          .y_label("perplexity")
          .add_series("validation", epochs, perplexities)
          .save((dir / "perplexity.png").string());
    }
  } catch (const std::exception& error) {
    spdlog::warn("could not write the plots: {}", error.what());
  }
}

}  // namespace dls::train

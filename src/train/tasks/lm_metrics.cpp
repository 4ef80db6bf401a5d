#include "train/tasks/lm_metrics.h"

#include "dls/train/run_plots.h"
#include "train/metrics_file.h"

namespace dls::train {

const std::vector<std::string>& lm_metrics_header() {
  static const std::vector<std::string> header = {"kind",     "epoch",
                                                  "step",     "loss",
                                                  "lr",       "sentences_per_s",
                                                  "val_loss", "val_perplexity",
                                                  "wall_s",   "val_word_perplexity"};
  return header;
}

std::vector<RunPlot> lm_run_plots(const std::string& metrics_path, double label_smoothing) {
  constexpr std::size_t kOldColumns = 9;  // the columns up to wall_s, in every run's file
  std::vector<double> epoch_steps, val_losses, epochs, perplexities;
  const auto rows = read_metrics_rows(metrics_path);
  for (std::size_t i = 1; i < rows.size(); ++i) {
    const auto& r = rows[i];
    if (r.size() < kOldColumns || !is_evaluation_row(r) || r[6].empty()) continue;
    epoch_steps.push_back(metric_number(r[2]));
    val_losses.push_back(metric_number(r[6]));
    epochs.push_back(metric_number(r[1]));
    perplexities.push_back(metric_number(r[7]));
  }
  std::vector<RunPlot> plots;
  plots.push_back(loss_plot(metrics_path, rows, "NLL per token", loss_series_names(label_smoothing, "validation"),
                            std::move(epoch_steps), std::move(val_losses)));
  RunPlot perplexity{"perplexity.png", util::LinePlot("Validation perplexity")};
  if (!epochs.empty()) {
    perplexity.plot.x_label("epoch").y_label("perplexity").add_series("validation", epochs, perplexities);
  }
  plots.push_back(std::move(perplexity));
  return plots;
}

}  // namespace dls::train

#include "train/tasks/seq2seq_metrics.h"

#include "dls/train/run_plots.h"
#include "train/metrics_file.h"

namespace dls::train {

const std::vector<std::string>& seq2seq_metrics_header() {
  static const std::vector<std::string> header = {"kind",   "epoch",         "step",     "loss",
                                                  "lr",     "pairs_per_s",   "val_loss", "val_bleu",
                                                  "wall_s", "val_sacrebleu", "val_chrf"};
  return header;
}

std::vector<RunPlot> seq2seq_run_plots(const std::string& metrics_path, double label_smoothing) {
  constexpr std::size_t kOldColumns = 9;  // the columns up to wall_s, in every run's file
  std::vector<double> epoch_steps, val_losses, epochs, bleus, sacrebleus;
  const auto rows = read_metrics_rows(metrics_path);
  for (std::size_t i = 1; i < rows.size(); ++i) {
    const auto& r = rows[i];
    if (r.size() < kOldColumns || !is_evaluation_row(r)) continue;
    epoch_steps.push_back(metric_number(r[2]));
    val_losses.push_back(metric_number(r[6]));
    epochs.push_back(metric_number(r[1]));
    bleus.push_back(100 * metric_number(r[7]));  // one scale with sacreBLEU's
    sacrebleus.push_back(metric_number(r, 9));
  }
  std::vector<RunPlot> plots;
  plots.push_back(loss_plot(metrics_path, rows, "loss", loss_series_names(label_smoothing, "validation"),
                            std::move(epoch_steps), std::move(val_losses)));
  RunPlot bleu{"bleu.png", util::LinePlot("Validation BLEU (greedy decoding)")};
  if (!epochs.empty()) {
    bleu.plot.x_label("epoch").y_label("BLEU (0-100)").add_series("corpus BLEU (NLTK) x 100", epochs, bleus);
    if (any_finite(sacrebleus)) bleu.plot.add_series("sacreBLEU", std::move(epochs), std::move(sacrebleus));
  }
  plots.push_back(std::move(bleu));
  return plots;
}

}  // namespace dls::train

#include "train/tasks/vit_metrics.h"

#include "dls/train/run_plots.h"
#include "train/metrics_file.h"

namespace dls::train {

const std::vector<std::string>& vit_metrics_header() {
  static const std::vector<std::string> header = {"kind",     "epoch",         "step",         "loss",
                                                  "accuracy", "test_accuracy", "lr",           "images_per_s",
                                                  "wall_s",   "test_loss",     "val_accuracy", "val_loss"};
  return header;
}

std::vector<RunPlot> vit_run_plots(const std::string& metrics_path, double label_smoothing) {
  constexpr std::size_t kOldColumns = 9;  // the columns up to wall_s, in every run's file
  std::vector<double> epoch_steps, test_losses, val_losses, epochs, train_acc, test_acc, val_acc;
  const auto rows = read_metrics_rows(metrics_path);
  for (std::size_t i = 1; i < rows.size(); ++i) {
    const auto& r = rows[i];
    if (r.size() < kOldColumns || !is_evaluation_row(r)) continue;
    epochs.push_back(metric_number(r[1]));
    train_acc.push_back(100 * metric_number(r[4]));
    test_acc.push_back(100 * metric_number(r[5]));
    val_acc.push_back(100 * metric_number(r, 10));
    epoch_steps.push_back(metric_number(r[2]));
    test_losses.push_back(metric_number(r, 9));
    val_losses.push_back(metric_number(r, 11));
  }
  // The held-out loss is the validation loss; runs without a validation split show the test loss.
  const bool validated = any_finite(val_losses);
  std::vector<RunPlot> plots;
  plots.push_back(loss_plot(metrics_path, rows, "cross-entropy",
                            loss_series_names(label_smoothing, validated ? "validation" : "test"),
                            std::move(epoch_steps), validated ? std::move(val_losses) : std::move(test_losses)));
  RunPlot accuracy{"accuracy.png", util::LinePlot("Accuracy")};
  if (!epochs.empty()) {
    accuracy.plot.x_label("epoch").y_label("accuracy (%)").add_series("train", epochs, train_acc);
    if (any_finite(val_acc)) accuracy.plot.add_series("validation", epochs, val_acc);
    accuracy.plot.add_series("test", epochs, test_acc);
  }
  plots.push_back(std::move(accuracy));
  return plots;
}

}  // namespace dls::train

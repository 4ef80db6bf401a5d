#include "train/tasks/vit_metrics.h"

#include "train/metrics_file.h"

#include <cmath>
#include <filesystem>

#include <spdlog/spdlog.h>

#include "dls/util/line_plot.h"

namespace dls::train {

const std::vector<std::string>& vit_metrics_header() {
  static const std::vector<std::string> header = {"kind",          "epoch", "step",         "loss",  "accuracy",
                                                  "test_accuracy", "lr",    "images_per_s", "wall_s"};
  return header;
}

void write_vit_plots(const std::string& metrics_path, const std::string& run_dir) {
  std::vector<double> epochs, train_acc, test_acc;
  const auto rows = read_metrics_rows(metrics_path);
  for (std::size_t i = 1; i < rows.size(); ++i) {
    const auto& r = rows[i];
    if (r.size() != vit_metrics_header().size()) continue;
    if (r[0] == "epoch") {
      epochs.push_back(metric_number(r[1]));
      train_acc.push_back(100 * metric_number(r[4]));
      test_acc.push_back(100 * metric_number(r[5]));
    }
  }
  const auto [steps, losses] = training_loss_curve(metrics_path, rows);
  const std::filesystem::path dir(run_dir);
  try {
    if (!steps.empty()) {
      util::LinePlot("Training loss")
          .x_label("step")
          .y_label("cross-entropy")
          .add_series("train", steps, losses)
          .save((dir / "loss.png").string());
    }
    if (!epochs.empty()) {
      util::LinePlot("Accuracy")
          .x_label("epoch")
          .y_label("accuracy (%)")
          .add_series("train", epochs, train_acc)
          .add_series("test", epochs, test_acc)
          .save((dir / "accuracy.png").string());
    }
  } catch (const std::exception& error) {
    spdlog::warn("could not write the plots: {}", error.what());
  }
}

}  // namespace dls::train

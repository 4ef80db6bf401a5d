#include "vit_metrics.h"

#include <cmath>
#include <filesystem>
#include <string_view>

#include <spdlog/spdlog.h>

#include "dls/util/file_io.h"
#include "dls/util/line_plot.h"

namespace dls::train {

namespace {

std::vector<std::vector<std::string>> read_rows(const std::string& path) {
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

double number(const std::string& text) {
  try {
    return text.empty() ? NAN : std::stod(text);
  } catch (const std::exception&) {
    return NAN;
  }
}

}  // namespace

const std::vector<std::string>& vit_metrics_header() {
  static const std::vector<std::string> header = {"kind", "epoch", "step", "loss", "accuracy",
                                                  "test_accuracy", "lr", "images_per_s", "wall_s"};
  return header;
}

std::unique_ptr<util::CsvWriter> open_vit_metrics(const std::string& path, bool resume,
                                                  std::int64_t resume_step) {
  using Mode = util::CsvWriter::Mode;
  if (resume && std::filesystem::exists(path)) {
    const auto rows = read_rows(path);
    if (!rows.empty() && rows.front() == vit_metrics_header()) {
      std::string kept;
      for (std::size_t i = 0; i < rows.size(); ++i) {
        if (i == 0 || (rows[i].size() > 2 && number(rows[i][2]) <= static_cast<double>(resume_step))) {
          kept += util::csv_line(rows[i]);
        }
      }
      util::write_text_atomically(path, kept);
    }
  }
  return std::make_unique<util::CsvWriter>(path, vit_metrics_header(),
                                           resume ? Mode::kAppend : Mode::kTruncate);
}

void write_vit_plots(const std::string& metrics_path, const std::string& run_dir) {
  std::vector<double> steps, losses, epochs, train_acc, test_acc;
  const auto rows = read_rows(metrics_path);
  for (std::size_t i = 1; i < rows.size(); ++i) {
    const auto& r = rows[i];
    if (r.size() != vit_metrics_header().size()) continue;
    if (r[0] == "step") {
      steps.push_back(number(r[2]));
      losses.push_back(number(r[3]));
    } else if (r[0] == "epoch") {
      epochs.push_back(number(r[1]));
      train_acc.push_back(100 * number(r[4]));
      test_acc.push_back(100 * number(r[5]));
    }
  }
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

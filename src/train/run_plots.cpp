#include "dls/train/run_plots.h"

#include <algorithm>
#include <cstdint>
#include <filesystem>

#include <spdlog/spdlog.h>

#include "dls/util/colormap.h"
#include "dls/util/heat_map.h"
#include "dls/util/image_panel.h"
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

// A rows x cols matrix of doubles [rows, cols] as an image of cells cell_w x cell_h pixels,
// each value mapped from [lo, hi] into viridis, with `caption` under it.
util::Canvas matrix_panel(const torch::Tensor& matrix, int cell_w, int cell_h, double lo, double hi,
                          const std::string& caption) {
  const auto rows = static_cast<int>(matrix.size(0)), cols = static_cast<int>(matrix.size(1));
  const int width = cols * cell_w, height = rows * cell_h;
  std::vector<std::uint8_t> pixels(static_cast<std::size_t>(width) * height * 3);
  const auto values = matrix.accessor<double, 2>();
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      const double t = std::clamp((values[y / cell_h][x / cell_w] - lo) / (hi - lo), 0.0, 1.0);
      const auto colour = util::color_at(util::ColorMap::kViridis, t);
      auto* pixel = &pixels[(static_cast<std::size_t>(y) * width + x) * 3];
      pixel[0] = colour.r, pixel[1] = colour.g, pixel[2] = colour.b;
    }
  }
  return util::image_panel({pixels.data(), height, width, 3}, 1, caption);
}

util::Canvas positional_encoding_picture(const torch::Tensor& encodings) {
  const auto table = encodings.detach().to(torch::kCPU, torch::kDouble).contiguous();
  const auto positions = static_cast<int>(table.size(0)), dims = static_cast<int>(table.size(1));
  // The matrix as an image about 1024 wide and at least 320 high: each value in [-1, 1] a colour.
  const auto matrix =
      matrix_panel(table, std::max(1, 1024 / dims), std::max(1, std::max(320, 3 * positions) / positions), -1, 1,
                   fmt::format("positions 0-{} (down) x dimensions 0-{} (across); -1 to 1", positions - 1, dims - 1));
  // P P^T: how alike two positions' encodings are. A labelled heat map for a few positions;
  // for a GPT's block (hundreds) the same matrix as an image, as tall as the one beside it.
  const auto similarity = table.matmul(table.t()).contiguous();
  if (positions > 32) {
    const int cell = std::max(1, std::max(320, 3 * positions) / positions);
    return util::tile_panels(
        {matrix, matrix_panel(similarity, cell, cell, similarity.min().item<double>(), similarity.max().item<double>(),
                              fmt::format("dot products of positions 0-{} (down and across); lowest to highest",
                                          positions - 1))},
        2, fmt::format("Sinusoidal positional encodings (L = {}, M = {})", positions, dims));
  }
  std::vector<double> cells(similarity.data_ptr<double>(), similarity.data_ptr<double>() + similarity.numel());
  std::vector<std::string> labels;
  for (int i = 0; i < positions; ++i) labels.push_back(std::to_string(i));
  util::HeatMap map(std::move(cells), positions, positions);
  map.title("dot products of positions").x_label("position").y_label("position").row_labels(labels).col_labels(labels);
  if (positions <= 16) map.annotate(0);
  return util::tile_panels({matrix, map.render()}, 2,
                           fmt::format("Sinusoidal positional encodings (L = {}, M = {})", positions, dims));
}

torch::Tensor sinusoidal_encodings_of(const torch::nn::Module& model) {
  for (const auto& buffer : model.named_buffers()) {
    const auto& name = buffer.key();
    const std::string leaf = "positional_encoding";
    if (name.size() >= leaf.size() && name.compare(name.size() - leaf.size(), leaf.size(), leaf) == 0 &&
        buffer.value().dim() == 2) {
      return buffer.value();
    }
  }
  return {};
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

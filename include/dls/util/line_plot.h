// Line plots of training curves (loss per step, BLEU or accuracy per epoch) as PNG.
#pragma once

#include <string>
#include <vector>

#include "dls/util/canvas.h"

namespace dls::util {

// One or more named series of (x, y) points, each in its own colour with a legend entry;
// axes with 1-2-5 ticks and grid lines, ranges fitted to the data with a small margin.
// Points whose x or y is NaN or infinite (or y <= 0 on a log axis) are skipped and break
// the line there. Series with few points (<= 40) also get a marker on every point.
//
//   LinePlot plot("Training loss");
//   plot.x_label("step").y_label("loss").log_y().add_series("train", steps, losses);
//   plot.save("loss.png");
class LinePlot {
 public:
  struct Series {
    std::string name;
    std::vector<double> x, y;
  };

  explicit LinePlot(std::string title = "") : title_(std::move(title)) {}

  LinePlot& title(std::string text) {
    title_ = std::move(text);
    return *this;
  }
  LinePlot& x_label(std::string text) {
    x_label_ = std::move(text);
    return *this;
  }
  LinePlot& y_label(std::string text) {
    y_label_ = std::move(text);
    return *this;
  }
  LinePlot& log_y(bool on = true) {
    log_y_ = on;
    return *this;
  }

  // Throws std::invalid_argument when x and y differ in length.
  LinePlot& add_series(std::string name, std::vector<double> x, std::vector<double> y);
  // y against x = 1, 2, ..., n (epochs).
  LinePlot& add_series(std::string name, std::vector<double> y);

  Canvas render(int width = 800, int height = 500) const;
  // render, then write_png (atomic).
  void save(const std::string& path, int width = 800, int height = 500) const;

  // Where render(width, height) puts the plotting area (inside the axes).
  Rect plot_area(int width = 800, int height = 500) const;

  // What the plot will draw, so that tests read a plot's legend and values, not its pixels.
  const std::string& title() const { return title_; }
  const std::string& x_label() const { return x_label_; }
  const std::string& y_label() const { return y_label_; }
  const std::vector<Series>& series() const { return series_; }

 private:
  struct Axes;  // ranges, ticks and area of one rendering (line_plot.cpp)

  bool usable(double x, double y) const;
  Axes layout(int width, int height) const;
  void draw_axes(const Axes& axes, Canvas* canvas) const;
  // Draws the series; returns their polylines in pixels (one per run of usable points).
  std::vector<std::vector<Point>> draw_series(const Axes& axes, Canvas* canvas) const;
  void draw_legend(const Rect& area, const std::vector<std::vector<Point>>& lines, Canvas* canvas) const;

  std::string title_, x_label_, y_label_;
  bool log_y_ = false;
  std::vector<Series> series_;
};

// The colour of the i-th series (matplotlib's ten-colour cycle).
Rgb series_color(std::size_t index);

}  // namespace dls::util

#include "dls/util/heat_map.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "dls/util/ticks.h"
#include "util/plot_style.h"

namespace dls::util {

namespace {

using plot_style::kFrame;
using plot_style::kTitleScale;

constexpr Rgb kMissing{200, 200, 200};
constexpr int kMaxExtent = 640;  // the matrix fits in about this many pixels each way
constexpr int kMinCell = 16, kMaxCell = 64;
constexpr int kMinMatrix = 120;  // a matrix is never thinner than this
constexpr int kMaxLabel = 160;   // longer labels are cut with ".."
constexpr int kBarGap = 16, kColorBarWidth = 16, kTick = 4;

std::string fit_label(const std::string& label) { return fit_text(label, kMaxLabel); }

int widest(const std::vector<std::string>& labels) {
  int width = 0;
  for (const std::string& label : labels) width = std::max(width, text_width(fit_label(label)));
  return width;
}

void check_labels(const std::vector<std::string>& labels, int expected, const char* what) {
  if (static_cast<int>(labels.size()) != expected) {
    throw std::invalid_argument(std::string("HeatMap: ") + std::to_string(labels.size()) + " " + what + " labels for " +
                                std::to_string(expected) + " " + what + "s");
  }
}

}  // namespace

HeatMap::HeatMap(std::vector<double> values, int rows, int cols)
    : values_(std::move(values)), rows_(rows), cols_(cols) {
  if (rows <= 0 || cols <= 0 || values_.size() != static_cast<std::size_t>(rows) * cols) {
    throw std::invalid_argument("HeatMap: " + std::to_string(values_.size()) + " values for a " + std::to_string(rows) +
                                " x " + std::to_string(cols) + " matrix");
  }
}

HeatMap& HeatMap::row_labels(std::vector<std::string> labels) {
  check_labels(labels, rows_, "row");
  row_labels_ = std::move(labels);
  return *this;
}

HeatMap& HeatMap::col_labels(std::vector<std::string> labels) {
  check_labels(labels, cols_, "column");
  col_labels_ = std::move(labels);
  return *this;
}

HeatMap& HeatMap::range(double lo, double hi) {
  if (!(std::isfinite(lo) && std::isfinite(hi) && lo < hi)) {
    throw std::invalid_argument("HeatMap: bad colour range [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
  }
  fixed_range_ = true, lo_ = lo, hi_ = hi;
  return *this;
}

std::string HeatMap::cell_text(double value) const {
  char buffer[48];
  std::snprintf(buffer, sizeof(buffer), "%.*f", decimals_, value);
  return buffer;
}

HeatMap::Layout HeatMap::layout() const {
  Layout l;
  const int line = text_height(1);
  // Cells.
  const int cell = std::clamp(std::min(kMaxExtent / cols_, kMaxExtent / rows_), kMinCell, kMaxCell);
  l.cell_w = std::max(cell, (kMinMatrix + cols_ - 1) / cols_);
  l.cell_h = std::max(cell, (kMinMatrix + rows_ - 1) / rows_);
  // Value range.
  l.lo = lo_, l.hi = hi_;
  if (!fixed_range_) {
    bool any = false;
    for (double v : values_) {
      if (!std::isfinite(v)) continue;
      l.lo = any ? std::min(l.lo, v) : v, l.hi = any ? std::max(l.hi, v) : v;
      any = true;
    }
    if (!any) l.lo = 0, l.hi = 1;
    if (l.lo == l.hi) l.lo -= 0.5, l.hi += 0.5;
  }
  // Annotations: the largest scale at which the widest value fits its cell.
  if (decimals_ >= 0) {
    int text = 0;
    for (double v : values_) {
      if (std::isfinite(v)) text = std::max(text, text_width(cell_text(v)));
    }
    if (2 * text <= l.cell_w - 6 && 2 * text_cap_height() <= l.cell_h - 6) {
      l.annotation_scale = 2;
    } else if (text <= l.cell_w - 4 && text_cap_height() <= l.cell_h - 4) {
      l.annotation_scale = 1;
    }
  }
  // Labels around the matrix.
  const int row_label_w = row_labels_.empty() ? 0 : widest(row_labels_) + 6;
  const int col_label_w = widest(col_labels_);
  l.vertical_col_labels = col_label_w > l.cell_w - 4;
  const int col_label_h = col_labels_.empty() ? 0 : (l.vertical_col_labels ? col_label_w : line) + 4;
  l.matrix.x = 10 + (y_label_.empty() ? 0 : line + 6) + row_label_w;
  l.matrix.y = 10 + (title_.empty() ? 0 : text_height(kTitleScale) + 4);
  l.matrix.w = cols_ * l.cell_w;
  l.matrix.h = rows_ * l.cell_h;
  l.height = l.matrix.y + l.matrix.h + col_label_h + (x_label_.empty() ? 0 : line + 6) + 10;
  // Colour bar and its tick labels.
  l.color_bar = {l.matrix.x + l.matrix.w + kBarGap, l.matrix.y, kColorBarWidth, l.matrix.h};
  const int max_ticks = std::max(2, l.matrix.h / 48);
  const double step = nice_step(l.lo, l.hi, max_ticks);
  l.bar_ticks = nice_ticks(l.lo, l.hi, max_ticks);
  for (double t : l.bar_ticks) l.bar_labels.push_back(format_tick(t, step));
  const int tick_label_w = widest(l.bar_labels);
  l.width = l.color_bar.x + kColorBarWidth + kTick + 3 + tick_label_w + 12;
  if (!title_.empty()) {  // a long title widens the image rather than being cut
    const int title_w = text_width(title_, kTitleScale);
    l.width = std::max(l.width, std::max(10, l.matrix.x + (l.matrix.w - title_w) / 2) + title_w + 10);
  }
  return l;
}

Canvas HeatMap::render() const {
  const Layout l = layout();
  Canvas canvas(l.width, l.height, kWhite);
  const int line = text_height(1);
  const Rect& m = l.matrix;
  if (!title_.empty()) {
    const int x = std::max(10, m.x + (m.w - text_width(title_, kTitleScale)) / 2);
    canvas.draw_text(x, 8, title_, kInk, kTitleScale);
  }
  // Cells and their values.
  for (int r = 0; r < rows_; ++r) {
    for (int c = 0; c < cols_; ++c) {
      const double v = values_[static_cast<std::size_t>(r) * cols_ + c];
      const Rgb color = std::isfinite(v) ? color_at(color_map_, (v - l.lo) / (l.hi - l.lo)) : kMissing;
      const int x = m.x + c * l.cell_w, y = m.y + r * l.cell_h;
      canvas.fill_rect(x, y, l.cell_w, l.cell_h, color);
      if (l.annotation_scale == 0 || !std::isfinite(v)) continue;
      const std::string text = cell_text(v);
      const int s = l.annotation_scale;
      canvas.draw_text(x + (l.cell_w - text_width(text, s)) / 2, y + (l.cell_h - text_height(s)) / 2, text,
                       readable_text_color(color), s);
    }
  }
  canvas.draw_rect(m.x - 1, m.y - 1, m.w + 2, m.h + 2, kFrame);
  // Row labels right-aligned before their row; column labels under their column.
  for (int r = 0; r < static_cast<int>(row_labels_.size()); ++r) {
    const std::string label = fit_label(row_labels_[r]);
    canvas.draw_text(m.x - 6 - text_width(label), m.y + r * l.cell_h + (l.cell_h - line) / 2, label, kInk);
  }
  for (int c = 0; c < static_cast<int>(col_labels_.size()); ++c) {
    const std::string label = fit_label(col_labels_[c]);
    const int center = m.x + c * l.cell_w + l.cell_w / 2;
    if (l.vertical_col_labels) {
      canvas.draw_text_vertical(center - line / 2, m.y + m.h + 4, label, kInk);
    } else {
      canvas.draw_text(center - text_width(label) / 2, m.y + m.h + 4, label, kInk);
    }
  }
  const int below = l.height - 10 - (x_label_.empty() ? 0 : line);
  if (!x_label_.empty()) canvas.draw_text(m.x + (m.w - text_width(x_label_)) / 2, below, x_label_, kInk);
  if (!y_label_.empty()) {
    canvas.draw_text_vertical(10, m.y + (m.h - text_width(y_label_)) / 2, y_label_, kInk);
  }
  // Colour bar: high values at the top.
  const Rect& b = l.color_bar;
  for (int j = 0; j < b.h; ++j) {
    const double t = b.h > 1 ? 1.0 - static_cast<double>(j) / (b.h - 1) : 0.5;
    canvas.fill_rect(b.x, b.y + j, b.w, 1, color_at(color_map_, t));
  }
  canvas.draw_rect(b.x - 1, b.y - 1, b.w + 2, b.h + 2, kFrame);
  for (std::size_t i = 0; i < l.bar_ticks.size(); ++i) {
    const double t = (l.bar_ticks[i] - l.lo) / (l.hi - l.lo);
    const int y = b.y + static_cast<int>(std::lround((1.0 - t) * (b.h - 1)));
    canvas.fill_rect(b.x + b.w + 1, y, kTick, 1, kFrame);
    canvas.draw_text(b.x + b.w + kTick + 3, y - line / 2, l.bar_labels[i], kInk);
  }
  return canvas;
}

void HeatMap::save(const std::string& path) const { render().save_png(path); }

}  // namespace dls::util

#include "dls/util/line_plot.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "dls/util/ticks.h"
#include "util/plot_style.h"

namespace dls::util {

// An axis's extent. Outside the anonymous namespace because LinePlot::Axes holds two.
struct LinePlotRange {
  double lo = 0, hi = 1;
};

namespace {

using plot_style::kFrame;
using plot_style::kTitleScale;

using Range = LinePlotRange;

constexpr Rgb kGrid{228, 228, 228};
constexpr Rgb kMinorGrid{240, 240, 240};
constexpr int kTickLength = 5;
constexpr int kMarkerLimit = 40;  // series with at most this many points get markers

constexpr double kLargest = std::numeric_limits<double>::max();

// Where `value` lies between lo and hi, as a fraction; halves first, so that a range from
// -1.7e308 to 1.7e308, whose width is no double, still divides.
double fraction_of(double value, double lo, double hi) { return (value / 2 - lo / 2) / (hi / 2 - lo / 2); }

// The data's extent widened by `margin` of its span on each side (a lone value gets +-0.5
// or 5 %, whichever is wider), kept within the doubles. Values that differ only in their
// last bits (two BLEU implementations' 100 and 100.00000000000004) are one value: ticks
// cannot divide a span that doubles hardly resolve.
Range padded(Range r, double margin) {
  const double half_span = r.hi / 2 - r.lo / 2;
  if (half_span <= 0.5e-9 * std::max(std::fabs(r.lo), std::fabs(r.hi))) {
    const double middle = r.lo / 2 + r.hi / 2;
    const double half = std::max(0.5, std::fabs(middle) * 0.05);
    return {std::max(-kLargest, middle - half), std::min(kLargest, middle + half)};
  }
  const double pad = half_span * 2 * margin;
  return {std::max(-kLargest, r.lo - pad), std::min(kLargest, r.hi + pad)};
}

int text_center_x(const Rect& r, const std::string& text, int scale) {
  return r.x + (r.w - text_width(text, scale)) / 2;
}

}  // namespace

struct LinePlot::Axes {
  Rect area;
  Range x, y;  // axis ranges; y in log10 units on a log axis
  bool log_y = false;
  std::vector<double> x_ticks, y_ticks;
  std::vector<std::string> x_labels, y_labels;

  double px(double value) const { return area.x + fraction_of(value, x.lo, x.hi) * area.w; }
  double py(double value) const {
    const double v = log_y ? std::log10(value) : value;
    return area.y + area.h - fraction_of(v, y.lo, y.hi) * area.h;
  }
};

Rgb series_color(std::size_t index) {
  static constexpr std::array<Rgb, 10> kCycle = {{{31, 119, 180},
                                                  {255, 127, 14},
                                                  {44, 160, 44},
                                                  {214, 39, 40},
                                                  {148, 103, 189},
                                                  {140, 86, 75},
                                                  {227, 119, 194},
                                                  {127, 127, 127},
                                                  {188, 189, 34},
                                                  {23, 190, 207}}};
  // Past ten series the cycle comes back darker, then lighter, and so on: 30 runs in one
  // comparison had three of each colour.
  const Rgb base = kCycle[index % kCycle.size()];
  const std::size_t round = index / kCycle.size() % 3;
  const auto shade = [&](int channel) {
    if (round == 1) return static_cast<std::uint8_t>(channel * 55 / 100);             // darker
    if (round == 2) return static_cast<std::uint8_t>(channel + (255 - channel) / 2);  // lighter
    return static_cast<std::uint8_t>(channel);
  };
  return {shade(base.r), shade(base.g), shade(base.b)};
}

LinePlot& LinePlot::add_series(std::string name, std::vector<double> x, std::vector<double> y) {
  if (x.size() != y.size()) {
    throw std::invalid_argument("LinePlot: series '" + name + "' has " + std::to_string(x.size()) + " x values but " +
                                std::to_string(y.size()) + " y values");
  }
  series_.push_back({std::move(name), std::move(x), std::move(y)});
  return *this;
}

LinePlot& LinePlot::add_series(std::string name, std::vector<double> y) {
  std::vector<double> x(y.size());
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<double>(i + 1);
  return add_series(std::move(name), std::move(x), std::move(y));
}

bool LinePlot::usable(double x, double y) const { return std::isfinite(x) && std::isfinite(y) && (!log_y_ || y > 0); }

LinePlot::Axes LinePlot::layout(int width, int height) const {
  Axes axes;
  axes.log_y = log_y_;
  bool any = false, integer_x = true;
  Range x{0, 1}, y{0, 1};
  for (const Series& s : series_) {
    for (std::size_t i = 0; i < s.x.size(); ++i) {
      if (!usable(s.x[i], s.y[i])) continue;
      const double v = log_y_ ? std::log10(s.y[i]) : s.y[i];
      if (!any) x = {s.x[i], s.x[i]}, y = {v, v};
      any = true;
      x = {std::min(x.lo, s.x[i]), std::max(x.hi, s.x[i])};
      y = {std::min(y.lo, v), std::max(y.hi, v)};
      integer_x = integer_x && s.x[i] == std::round(s.x[i]);
    }
  }
  axes.x = any ? padded(x, 0.03) : x;
  axes.y = any ? padded(y, 0.06) : y;
  if (log_y_) {  // powers of ten that are doubles: 10^308.254 is, 10^log10(max) may round past it
    axes.y = {std::max(axes.y.lo, std::ceil(std::log10(std::numeric_limits<double>::min()) * 1000) / 1000),
              std::min(axes.y.hi, std::floor(std::log10(kLargest) * 1000) / 1000)};
  }

  // Heights first: they do not depend on the tick labels.
  const int line = text_height(1);
  const int top = 10 + (title_.empty() ? 0 : text_height(kTitleScale) + 4);
  const int bottom = kTickLength + 4 + line + (x_label_.empty() ? 0 : line + 4) + 8;
  axes.area.y = top;
  axes.area.h = std::max(10, height - top - bottom);

  const int max_y_ticks = std::max(2, axes.area.h / 45);
  if (log_y_) {
    axes.y_ticks = log_ticks(std::pow(10.0, axes.y.lo), std::pow(10.0, axes.y.hi), max_y_ticks);
    for (double t : axes.y_ticks) axes.y_labels.push_back(format_tick(t));
  } else {
    axes.y_ticks = nice_ticks(axes.y.lo, axes.y.hi, max_y_ticks);
    const double step = nice_step(axes.y.lo, axes.y.hi, max_y_ticks);
    for (double t : axes.y_ticks) axes.y_labels.push_back(format_tick(t, step));
  }
  int label_width = 0;
  for (const std::string& label : axes.y_labels) label_width = std::max(label_width, text_width(label));
  axes.area.x = 10 + (y_label_.empty() ? 0 : line + 6) + label_width + kTickLength + 4;

  // The x ticks; whole-number data (epochs, steps) never gets fractional ticks.
  int max_x_ticks = std::max(2, (width - axes.area.x - 20) / 90);
  if (integer_x) {
    const double whole_numbers = std::trunc((axes.x.hi / 2 - axes.x.lo / 2) * 2) + 1;  // inf past the doubles
    max_x_ticks = std::max(2, static_cast<int>(std::min<double>(max_x_ticks, whole_numbers)));
  }
  axes.x_ticks = nice_ticks(axes.x.lo, axes.x.hi, max_x_ticks);
  const double x_step = nice_step(axes.x.lo, axes.x.hi, max_x_ticks);
  for (double t : axes.x_ticks) axes.x_labels.push_back(format_tick(t, x_step));
  const int half_last = axes.x_labels.empty() ? 0 : text_width(axes.x_labels.back()) / 2;
  axes.area.w = std::max(10, width - axes.area.x - std::max(20, half_last + 6));
  return axes;
}

Rect LinePlot::plot_area(int width, int height) const { return layout(width, height).area; }

void LinePlot::draw_axes(const Axes& axes, Canvas* canvas) const {
  const Rect& a = axes.area;
  const int line = text_height(1);
  if (!title_.empty()) {
    const int scale = text_width(title_, kTitleScale) <= canvas->width() - 20 ? kTitleScale : 1;
    const int x = std::max(4, text_center_x(a, title_, scale));
    canvas->draw_text(x, 8 + (text_height(kTitleScale) - text_height(scale)) / 2, title_, kInk, scale);
  }
  if (log_y_ && axes.y.hi - axes.y.lo <= 4) {  // fainter lines at 2x .. 9x each power of ten
    for (int e = static_cast<int>(std::floor(axes.y.lo)); e <= axes.y.hi; ++e) {
      for (int m = 2; m <= 9; ++m) {
        const double v = std::log10(m) + e;
        if (v > axes.y.lo && v < axes.y.hi) {
          canvas->fill_rect(a.x, static_cast<int>(std::floor(axes.py(std::pow(10.0, v)))), a.w, 1, kMinorGrid);
        }
      }
    }
  }
  for (std::size_t i = 0; i < axes.y_ticks.size(); ++i) {
    const int y = static_cast<int>(std::floor(axes.py(axes.y_ticks[i])));
    canvas->fill_rect(a.x, y, a.w, 1, kGrid);
    canvas->fill_rect(a.x - 1 - kTickLength, y, kTickLength, 1, kFrame);
    const std::string& label = axes.y_labels[i];
    canvas->draw_text(a.x - kTickLength - 4 - text_width(label), y - line / 2, label, kInk);
  }
  for (std::size_t i = 0; i < axes.x_ticks.size(); ++i) {
    const int x = static_cast<int>(std::floor(axes.px(axes.x_ticks[i])));
    canvas->fill_rect(x, a.y, 1, a.h, kGrid);
    canvas->fill_rect(x, a.y + a.h + 1, 1, kTickLength, kFrame);
    const std::string& label = axes.x_labels[i];
    canvas->draw_text(x - text_width(label) / 2, a.y + a.h + kTickLength + 3, label, kInk);
  }
  canvas->draw_rect(a.x - 1, a.y - 1, a.w + 2, a.h + 2, kFrame);
  if (!x_label_.empty()) {
    canvas->draw_text(text_center_x(a, x_label_, 1), a.y + a.h + kTickLength + 3 + line + 4, x_label_, kInk);
  }
  if (!y_label_.empty()) {
    canvas->draw_text_vertical(10, a.y + (a.h - text_width(y_label_)) / 2, y_label_, kInk);
  }
}

std::vector<std::vector<Point>> LinePlot::draw_series(const Axes& axes, Canvas* canvas) const {
  std::vector<std::vector<Point>> lines;
  for (std::size_t s = 0; s < series_.size(); ++s) {
    const Series& series = series_[s];
    const std::size_t first_line = lines.size();
    std::size_t points = 0;
    bool in_run = false;
    for (std::size_t i = 0; i < series.x.size(); ++i) {
      if (!usable(series.x[i], series.y[i])) {
        in_run = false;
        continue;
      }
      if (!in_run) lines.emplace_back();
      lines.back().push_back({axes.px(series.x[i]), axes.py(series.y[i])});
      in_run = true;
      ++points;
    }
    const Rgb color = series_color(s);
    for (std::size_t k = first_line; k < lines.size(); ++k) {
      canvas->draw_polyline(lines[k], color, points > 500 ? 1.3 : 2.0);
      if (points > kMarkerLimit) continue;
      for (const Point& p : lines[k]) canvas->draw_line(p, p, color, 6.0);
    }
  }
  return lines;
}

void LinePlot::draw_legend(const Rect& a, const std::vector<std::vector<Point>>& lines, Canvas* canvas) const {
  std::vector<std::size_t> named;
  int text_w = 0;
  for (std::size_t s = 0; s < series_.size(); ++s) {
    if (series_[s].name.empty()) continue;
    named.push_back(s);
    text_w = std::max(text_w, text_width(series_[s].name));
  }
  if (named.empty()) return;
  const int line = text_height(1), swatch = 22, pad = 6, entry = line + 2, inset = 8;
  // In columns when the entries are more than the area is tall; those that fit no column
  // within its width are counted in a last entry ("+ 12 more").
  const int per_column = std::max(1, (a.h - 2 * inset - 2 * pad) / entry);
  const int column_w = swatch + 6 + text_w + pad;
  const int max_columns = std::max(1, (a.w - 2 * inset - pad) / column_w);
  std::size_t left_out = 0;
  if (named.size() > static_cast<std::size_t>(per_column * max_columns)) {
    const auto shown = static_cast<std::size_t>(per_column * max_columns - 1);
    left_out = named.size() - shown;
    named.resize(shown);
  }
  const std::size_t entries = named.size() + (left_out > 0 ? 1 : 0);
  const int columns = static_cast<int>((entries + per_column - 1) / per_column);
  const int rows = static_cast<int>(std::min<std::size_t>(entries, static_cast<std::size_t>(per_column)));
  const int box_w = pad + columns * column_w;
  const int box_h = pad + rows * entry + pad - 2;
  const int left = a.x + inset, right = a.x + a.w - inset - box_w;
  const int top = a.y + inset, bottom = a.y + a.h - inset - box_h;
  // The corner that hides the fewest points sampled every 4 pixels along the lines.
  const std::array<std::array<int, 2>, 4> corners = {{{right, top}, {right, bottom}, {left, top}, {left, bottom}}};
  std::array<long, 4> hidden{};
  for (const std::vector<Point>& l : lines) {
    for (std::size_t i = 0; i < l.size(); ++i) {
      const Point p = l[i], q = l[std::min(i + 1, l.size() - 1)];
      const int samples = 1 + static_cast<int>(std::hypot(q.x - p.x, q.y - p.y) / 4);
      for (int k = 0; k < samples; ++k) {
        const double x = p.x + (q.x - p.x) * k / samples, y = p.y + (q.y - p.y) * k / samples;
        for (std::size_t c = 0; c < corners.size(); ++c) {
          hidden[c] += x >= corners[c][0] - 3 && x <= corners[c][0] + box_w + 3 && y >= corners[c][1] - 3 &&
                       y <= corners[c][1] + box_h + 3;
        }
      }
    }
  }
  const std::size_t best = std::min_element(hidden.begin(), hidden.end()) - hidden.begin();
  const int bx = corners[best][0], by = corners[best][1];
  canvas->fill_rect(bx, by, box_w, box_h, kWhite);
  canvas->draw_rect(bx, by, box_w, box_h, {200, 200, 200});
  for (std::size_t k = 0; k < entries; ++k) {
    const int x = bx + pad + static_cast<int>(k) / per_column * column_w;
    const int y = by + pad + static_cast<int>(k) % per_column * entry;
    if (k == named.size()) {  // the entry of those left out
      canvas->draw_text(x, y, "+ " + std::to_string(left_out) + " more", kInk);
      continue;
    }
    const double middle = y + line / 2.0;
    canvas->draw_line({double(x), middle}, {double(x + swatch), middle}, series_color(named[k]), 2.0);
    canvas->draw_text(x + swatch + 6, y, series_[named[k]].name, kInk);
  }
}

Canvas LinePlot::render(int width, int height) const {
  const Axes axes = layout(width, height);
  Canvas canvas(width, height, kWhite);
  draw_axes(axes, &canvas);
  const auto lines = draw_series(axes, &canvas);
  draw_legend(axes.area, lines, &canvas);
  return canvas;
}

void LinePlot::save(const std::string& path, int width, int height) const { render(width, height).save_png(path); }

}  // namespace dls::util

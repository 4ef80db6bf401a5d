#include "dls/util/line_plot.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <limits>

#include "dls/util/file_io.h"
#include "util/png_reader.h"
#include "util/temp_files.h"

namespace dls::util {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// Pixels of exactly `color` inside `r`.
// Pixels of `color` or close to it (anti-aliased edges of a line mix it with white).
int count_color(const Canvas& c, const Rect& r, Rgb color) {
  const auto close = [color](Rgb p) {
    return std::abs(p.r - color.r) + std::abs(p.g - color.g) + std::abs(p.b - color.b) <= 60;
  };
  int n = 0;
  for (int y = r.y; y < r.y + r.h; ++y) {
    for (int x = r.x; x < r.x + r.w; ++x) n += close(c.pixel(x, y));
  }
  return n;
}

int count_ink(const Canvas& c, const Rect& r) {
  int n = 0;
  for (int y = r.y; y < r.y + r.h; ++y) {
    for (int x = r.x; x < r.x + r.w; ++x) n += c.pixel(x, y) != kWhite;
  }
  return n;
}

TEST(LinePlot, DrawsEverySeriesInsideThePlottingArea) {
  std::vector<double> steps, train, valid;
  for (int i = 1; i <= 200; ++i) {
    steps.push_back(i);
    train.push_back(5.0 * std::exp(-i / 50.0) + 0.5);
    valid.push_back(5.5 * std::exp(-i / 60.0) + 0.7);
  }
  LinePlot plot("Loss");
  plot.x_label("step").y_label("loss").add_series("train", steps, train).add_series("validation", steps, valid);
  const Canvas canvas = plot.render(640, 400);
  ASSERT_EQ(canvas.width(), 640);
  ASSERT_EQ(canvas.height(), 400);
  const Rect area = plot.plot_area(640, 400);
  EXPECT_GT(area.x, 30);  // room for the tick labels and the axis label
  EXPECT_GT(area.w, 500);
  EXPECT_LT(area.x + area.w, 640);
  EXPECT_LT(area.y + area.h, 400 - 20);
  // Each series is a 2-pixel line: at least one full-colour pixel per column it spans.
  EXPECT_GT(count_color(canvas, area, series_color(0)), area.w);
  EXPECT_GT(count_color(canvas, area, series_color(1)), area.w);
  EXPECT_NE(series_color(0), series_color(1));
  // Tick labels left of and under the area; title above it.
  EXPECT_GT(count_ink(canvas, {0, area.y, area.x - 8, area.h}), 50);
  EXPECT_GT(count_ink(canvas, {area.x, area.y + area.h + 8, area.w, 400 - area.y - area.h - 8}), 50);
  EXPECT_GT(count_ink(canvas, {0, 0, 640, area.y - 2}), 20);
}

// Two scorers' 100 and 100.00000000000004 (a perfect model's BLEU by NLTK and sacreBLEU): a
// flat line, drawn (the ticks' loop never ended, its memory growing, before).
TEST(LinePlot, ValuesThatDifferInTheirLastBitsAreOneLevel) {
  for (const double level : {100.0, 0.9203, 1e-300, -7.5}) {
    LinePlot plot;
    plot.add_series("a", {1, 2}, {level, level}).add_series("b", {1, 2}, {std::nextafter(level, 1e308), level});
    const Canvas canvas = plot.render();
    EXPECT_GT(count_color(canvas, plot.plot_area(), series_color(0)), 20) << level;
  }
}

// A range whose width is no double (-1.7e308 .. 1.7e308) is still an axis with ticks.
TEST(LinePlot, ValuesAtTheEndsOfTheDoublesAreDrawn) {
  const double huge = std::numeric_limits<double>::max();
  for (const std::vector<double>& ys : std::vector<std::vector<double>>{
           {-huge, huge}, {huge, huge}, {-huge, -huge}, {1.0, huge}, {1.7e308, -1.7e308}}) {
    LinePlot plot;
    plot.add_series("a", {1, 2}, ys);
    EXPECT_GT(count_color(plot.render(), plot.plot_area(), series_color(0)), 20) << ys[0] << " " << ys[1];
  }
  LinePlot wide_x;
  wide_x.add_series("a", {-huge, huge}, {1, 2});
  EXPECT_GT(count_color(wide_x.render(), wide_x.plot_area(), series_color(0)), 20);
  LinePlot log_plot;
  log_plot.log_y().add_series("a", {1, 2, 3}, {huge, 1.0, 4.9e-324});
  EXPECT_GT(count_color(log_plot.render(), log_plot.plot_area(), series_color(0)), 20);
}

TEST(LinePlot, SkipsNaNAndInfinitePoints) {
  LinePlot plot;
  plot.add_series("", {1, 2, 3, 4, 5, 6}, {1, kNaN, 3, kInf, 5, 6});
  const Canvas canvas = plot.render();
  EXPECT_GT(count_color(canvas, plot.plot_area(), series_color(0)), 20);
  // Nothing usable: the axes are drawn, no data and no legend.
  LinePlot empty;
  empty.add_series("", {1, 2}, {kNaN, -kInf});
  EXPECT_EQ(count_color(empty.render(), empty.plot_area(), series_color(0)), 0);
  // On a log axis, values <= 0 are skipped as well.
  LinePlot log_plot;
  log_plot.log_y().add_series("", {1, 2, 3}, {0.0, -1.0, 2.0});
  EXPECT_GT(count_color(log_plot.render(), log_plot.plot_area(), series_color(0)), 5);
}

TEST(LinePlot, LineJoinsPointsAcrossTheArea) {
  LinePlot plot;
  plot.add_series("", {0, 100}, {0, 100});
  const Canvas canvas = plot.render(500, 500);
  const Rect a = plot.plot_area(500, 500);
  // The diagonal from bottom-left to top-right passes through the middle of the area
  // (ranges have the same relative margins, so it stays on the area's diagonal).
  const int cx = a.x + a.w / 2, cy = a.y + a.h / 2;
  const double slope = static_cast<double>(a.h) / a.w;
  int on_line = 0;
  for (int dx = -3; dx <= 3; ++dx) {
    const int y = static_cast<int>(std::lround(cy - dx * slope));
    for (int dy = -2; dy <= 2; ++dy) on_line += count_color(canvas, {cx + dx, y + dy, 1, 1}, series_color(0));
  }
  EXPECT_GT(on_line, 5);
  EXPECT_EQ(canvas.pixel(a.x + 5, a.y + 5), kWhite);  // top-left corner: empty
}

TEST(LinePlot, LegendNamesTheSeries) {
  LinePlot with, without;
  with.add_series("train", {1, 2, 3}, {3, 2, 1});
  without.add_series("", {1, 2, 3}, {3, 2, 1});
  const Canvas a = with.render(), b = without.render();
  const Rect area = with.plot_area();
  EXPECT_GT(count_ink(a, area), count_ink(b, area) + 20);  // swatch, text and box
}

// Thirty series (compare_runs of thirty runs): the legend stays inside the plotting area, in
// columns, and no two of the first thirty series share a colour.
TEST(LinePlot, ManySeriesKeepTheirLegendInsideAndTheirColoursApart) {
  LinePlot plot;
  for (int i = 0; i < 30; ++i) plot.add_series("run " + std::to_string(i), {1, 2}, {0.0 + i, 1.0 + i});
  const Canvas canvas = plot.render(560, 400);
  const Rect area = plot.plot_area();
  // The frame line of the legend box, (200, 200, 200), never outside the area.
  int frame_outside = 0;
  for (int y = 0; y < canvas.height(); ++y) {
    for (int x = 0; x < canvas.width(); ++x) {
      const bool inside = x >= area.x && x < area.x + area.w && y >= area.y && y < area.y + area.h;
      frame_outside += !inside && canvas.pixel(x, y) == Rgb{200, 200, 200};
    }
  }
  EXPECT_EQ(frame_outside, 0);
  for (std::size_t i = 0; i < 30; ++i) {
    for (std::size_t j = 0; j < i; ++j) EXPECT_NE(series_color(i), series_color(j)) << i << " " << j;
  }
}

TEST(LinePlot, MismatchedSeriesIsAnError) {
  LinePlot plot;
  EXPECT_THROW(plot.add_series("bad", {1, 2, 3}, {1, 2}), std::invalid_argument);
}

TEST(LinePlot, SaveWritesTheRenderedImage) {
  LinePlot plot("BLEU");
  plot.x_label("epoch").add_series("greedy", {3.1, 7.9, 12.5, 14.0});
  const std::string path = test::process_temp_path("line_plot").string() + ".png";
  plot.save(path, 400, 300);
  const test::DecodedPng png = test::decode_png(read_file(path));
  EXPECT_EQ(png.width, 400);
  EXPECT_EQ(png.height, 300);
  EXPECT_EQ(png.pixels, plot.render(400, 300).pixels());
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace dls::util

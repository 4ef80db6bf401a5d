#include "dls/util/heat_map.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "dls/util/file_io.h"
#include "util/png_reader.h"
#include "util/temp_files.h"

namespace dls::util {
namespace {

std::vector<double> ramp(int n) {
  std::vector<double> v(n);
  for (int i = 0; i < n; ++i) v[i] = i;
  return v;
}

Rgb cell_center(const Canvas& c, const HeatMap::Layout& l, int row, int col) {
  return c.pixel(l.matrix.x + col * l.cell_w + l.cell_w / 2, l.matrix.y + row * l.cell_h + l.cell_h / 2);
}

TEST(HeatMap, CellSizeAdaptsToTheShape) {
  const HeatMap::Layout square = HeatMap(ramp(100), 10, 10).layout();
  EXPECT_EQ(square.cell_w, 64);
  EXPECT_EQ(square.cell_h, 64);
  const HeatMap::Layout strip = HeatMap(ramp(64), 1, 64).layout();
  EXPECT_EQ(strip.cell_w, 16);
  EXPECT_EQ(strip.cell_h, 120);  // a single row is made tall enough to see
  const HeatMap::Layout column = HeatMap(ramp(64), 64, 1).layout();
  EXPECT_EQ(column.cell_h, 16);
  EXPECT_EQ(column.cell_w, 120);
  const HeatMap::Layout big = HeatMap(ramp(200 * 10), 200, 10).layout();
  EXPECT_EQ(big.cell_h, 16);
}

TEST(HeatMap, CellsAndColourBarUseTheColourMap) {
  HeatMap map(ramp(9), 3, 3);
  map.color_map(ColorMap::kInferno);
  const HeatMap::Layout l = map.layout();
  const Canvas c = map.render();
  ASSERT_EQ(c.width(), l.width);
  ASSERT_EQ(c.height(), l.height);
  EXPECT_EQ(l.lo, 0);
  EXPECT_EQ(l.hi, 8);
  for (int i = 0; i < 9; ++i) {
    EXPECT_EQ(cell_center(c, l, i / 3, i % 3), color_at(ColorMap::kInferno, i / 8.0)) << i;
  }
  // The bar runs from the top colour (high values) down to the bottom one.
  const Rect& b = l.color_bar;
  EXPECT_GT(b.x, l.matrix.x + l.matrix.w);
  EXPECT_EQ(c.pixel(b.x + b.w / 2, b.y), color_at(ColorMap::kInferno, 1));
  EXPECT_EQ(c.pixel(b.x + b.w / 2, b.y + b.h - 1), color_at(ColorMap::kInferno, 0));
  EXPECT_EQ(c.pixel(b.x + b.w / 2, b.y + b.h / 2), color_at(ColorMap::kInferno, 1.0 - (b.h / 2) / double(b.h - 1)));
  // Ticks at 1-2-5 values (192 pixels hold at most 4), labelled right of the bar.
  EXPECT_EQ(l.bar_ticks, (std::vector<double>{0, 5}));
  EXPECT_EQ(l.bar_labels, (std::vector<std::string>{"0", "5"}));
  const int five_y = b.y + static_cast<int>(std::lround((1.0 - 5.0 / 8.0) * (b.h - 1)));
  EXPECT_EQ(c.pixel(b.x + b.w + 2, five_y), (Rgb{90, 90, 90}));
  int ink = 0;
  for (int y = b.y; y < b.y + b.h; ++y) {
    for (int x = b.x + b.w + 2; x < l.width; ++x) ink += c.pixel(x, y) != kWhite;
  }
  EXPECT_GT(ink, 30);
}

TEST(HeatMap, FixedRangeAndMissingValues) {
  HeatMap map({-1.0, 0.5, 2.0, std::nan("")}, 2, 2);
  map.range(0, 1);
  const HeatMap::Layout l = map.layout();
  const Canvas c = map.render();
  EXPECT_EQ(cell_center(c, l, 0, 0), color_at(ColorMap::kViridis, 0));
  EXPECT_EQ(cell_center(c, l, 0, 1), color_at(ColorMap::kViridis, 0.5));
  EXPECT_EQ(cell_center(c, l, 1, 0), color_at(ColorMap::kViridis, 1));
  EXPECT_EQ(cell_center(c, l, 1, 1), (Rgb{200, 200, 200}));
  EXPECT_THROW(map.range(1, 1), std::invalid_argument);
}

TEST(HeatMap, AnnotationsInAReadableColour) {
  std::vector<double> values(100, 0.0);
  values[0] = 65.6;
  HeatMap map(values, 10, 10);
  map.annotate(1);
  const HeatMap::Layout l = map.layout();
  EXPECT_EQ(l.annotation_scale, 2);
  const Canvas c = map.render();
  // Cell (0, 0) is the brightest (yellow): black digits; cell (1, 1) is dark: white ones.
  const auto count = [&](int row, int col, Rgb color) {
    int n = 0;
    for (int y = 0; y < l.cell_h; ++y) {
      for (int x = 0; x < l.cell_w; ++x) {
        n += c.pixel(l.matrix.x + col * l.cell_w + x, l.matrix.y + row * l.cell_h + y) == color;
      }
    }
    return n;
  };
  EXPECT_GT(count(0, 0, kBlack), 40);
  EXPECT_GT(count(1, 1, kWhite), 20);
  EXPECT_EQ(count(1, 1, kBlack), 0);
  // No room in 16-pixel cells for "0.50": no annotations.
  HeatMap strip(std::vector<double>(64, 0.5), 1, 64);
  EXPECT_EQ(strip.annotate(2).layout().annotation_scale, 0);
}

TEST(HeatMap, ColumnLabelsTurnWhenTheyDoNotFit) {
  HeatMap words(ramp(4), 2, 2);
  words.row_labels({"¿dónde", "está"}).col_labels({"where", "is"});
  EXPECT_FALSE(words.layout().vertical_col_labels);
  HeatMap many(ramp(20), 1, 20);
  std::vector<std::string> labels(20, "estación");
  many.col_labels(labels);
  const HeatMap::Layout l = many.layout();
  EXPECT_TRUE(l.vertical_col_labels);
  EXPECT_GE(l.height, l.matrix.y + l.matrix.h + text_width("estación"));
  // Labels appear left of and under the matrix.
  const Canvas c = words.render();
  const HeatMap::Layout w = words.layout();
  int left = 0, under = 0;
  for (int y = 0; y < c.height(); ++y) {
    for (int x = 0; x < c.width(); ++x) {
      if (c.pixel(x, y) == kWhite) continue;
      left += x < w.matrix.x - 2 && y >= w.matrix.y && y < w.matrix.y + w.matrix.h;
      under += y > w.matrix.y + w.matrix.h + 1 && x >= w.matrix.x && x < w.matrix.x + w.matrix.w;
    }
  }
  EXPECT_GT(left, 40);
  EXPECT_GT(under, 20);
}

TEST(HeatMap, BadShapesAreErrors) {
  EXPECT_THROW(HeatMap(ramp(5), 2, 3), std::invalid_argument);
  EXPECT_THROW(HeatMap({}, 0, 0), std::invalid_argument);
  HeatMap map(ramp(6), 2, 3);
  EXPECT_THROW(map.row_labels({"a"}), std::invalid_argument);
  EXPECT_THROW(map.col_labels({"a", "b"}), std::invalid_argument);
}

TEST(HeatMap, SaveWritesAPngOfTheLayoutSize) {
  HeatMap map(ramp(90), 9, 10);
  map.title("Attention");
  const std::string path = test::process_temp_path("heat_map").string() + ".png";
  map.save(path);
  const test::DecodedPng png = test::decode_png(read_file(path));
  EXPECT_EQ(png.width, map.layout().width);
  EXPECT_EQ(png.height, map.layout().height);
  EXPECT_EQ(png.pixels, map.render().pixels());
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace dls::util

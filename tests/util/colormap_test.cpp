#include "dls/util/colormap.h"

#include <gtest/gtest.h>

#include <cmath>

namespace dls::util {
namespace {

double luminance(Rgb c) { return 0.299 * c.r + 0.587 * c.g + 0.114 * c.b; }

TEST(ColorMap, EndsMatchMatplotlib) {
  EXPECT_EQ(color_at(ColorMap::kViridis, 0), (Rgb{0x44, 0x01, 0x54}));
  EXPECT_EQ(color_at(ColorMap::kViridis, 0.5), (Rgb{0x21, 0x90, 0x8d}));
  EXPECT_EQ(color_at(ColorMap::kViridis, 1), (Rgb{0xfd, 0xe7, 0x25}));
  EXPECT_EQ(color_at(ColorMap::kInferno, 0), (Rgb{0x00, 0x00, 0x04}));
  EXPECT_EQ(color_at(ColorMap::kInferno, 1), (Rgb{0xfc, 0xff, 0xa4}));
  // Clamped outside [0, 1]; NaN is gray.
  EXPECT_EQ(color_at(ColorMap::kViridis, -3), color_at(ColorMap::kViridis, 0));
  EXPECT_EQ(color_at(ColorMap::kViridis, 7), color_at(ColorMap::kViridis, 1));
  EXPECT_EQ(color_at(ColorMap::kViridis, std::nan("")), (Rgb{128, 128, 128}));
}

TEST(ColorMap, LightnessGrowsAlongTheMap) {
  for (ColorMap map : {ColorMap::kViridis, ColorMap::kInferno}) {
    double previous = -1;
    for (int i = 0; i <= 32; ++i) {
      const double l = luminance(color_at(map, i / 32.0));
      EXPECT_GT(l, previous) << i;
      previous = l;
    }
  }
}

TEST(ColorMap, ReadableTextColor) {
  EXPECT_EQ(readable_text_color(color_at(ColorMap::kViridis, 0)), kWhite);
  EXPECT_EQ(readable_text_color(color_at(ColorMap::kViridis, 1)), kBlack);
  EXPECT_EQ(readable_text_color(kWhite), kBlack);
}

}  // namespace
}  // namespace dls::util

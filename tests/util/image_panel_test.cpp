#include "dls/util/image_panel.h"

#include <gtest/gtest.h>

namespace dls::util {
namespace {

TEST(ImagePanel, EnlargesByNearestNeighbour) {
  const std::uint8_t rgb[] = {255, 0, 0, 0, 255, 0, 0, 0, 255, 10, 20, 30};  // 2 x 2
  const Canvas panel = image_panel({rgb, 2, 2, 3}, 3, "");
  ASSERT_EQ(panel.width(), 6);
  ASSERT_EQ(panel.height(), 6);
  EXPECT_EQ(panel.pixel(0, 0), (Rgb{255, 0, 0}));
  EXPECT_EQ(panel.pixel(2, 2), (Rgb{255, 0, 0}));
  EXPECT_EQ(panel.pixel(3, 0), (Rgb{0, 255, 0}));
  EXPECT_EQ(panel.pixel(0, 5), (Rgb{0, 0, 255}));
  EXPECT_EQ(panel.pixel(5, 5), (Rgb{10, 20, 30}));
  const std::uint8_t gray[] = {7, 200};  // 1 x 2, one channel
  const Canvas g = image_panel({gray, 1, 2, 1}, 2, "");
  EXPECT_EQ(g.pixel(1, 1), (Rgb{7, 7, 7}));
  EXPECT_EQ(g.pixel(2, 0), (Rgb{200, 200, 200}));
}

TEST(ImagePanel, CaptionGoesUnderAndCanWidenThePanel) {
  const std::vector<std::uint8_t> image(8 * 8, 90);
  const Canvas short_caption = image_panel({image.data(), 8, 8, 1}, 4, "cat");
  EXPECT_EQ(short_caption.width(), 32);
  EXPECT_EQ(short_caption.height(), 32 + 4 + text_height());
  int ink = 0;
  for (int y = 33; y < short_caption.height(); ++y) {
    for (int x = 0; x < 32; ++x) ink += short_caption.pixel(x, y) != kWhite;
  }
  EXPECT_GT(ink, 10);
  const Canvas long_caption = image_panel({image.data(), 8, 8, 1}, 4, "automobile 0.93 (wrong)");
  EXPECT_EQ(long_caption.width(), text_width("automobile 0.93 (wrong)") + 4);
  // The image is centred in the wider panel.
  const int left = (long_caption.width() - 32) / 2;
  EXPECT_EQ(long_caption.pixel(left, 0), (Rgb{90, 90, 90}));
  EXPECT_EQ(long_caption.pixel(left - 1, 0), kWhite);
}

TEST(AttentionOverlay, BlendsTheColourMapOfEachPatch) {
  const std::vector<std::uint8_t> image(4 * 4 * 3, 100);  // 4 x 4 gray RGB
  OverlayOptions options;
  options.scale = 2;
  options.alpha = 0.5;
  // 2 x 2 patches: only the bottom-right one is attended to.
  const Canvas panel = attention_overlay({image.data(), 4, 4, 3}, {0.01, 0.01, 0.01, 0.97}, 2, 2, "", options);
  ASSERT_EQ(panel.width(), 8);
  const Rgb gray{100, 100, 100};
  const Rgb low = mix(gray, color_at(options.color_map, 0), 0.5);
  const Rgb high = mix(gray, color_at(options.color_map, 1), 0.5);
  for (int y = 0; y < 8; ++y) {
    for (int x = 0; x < 8; ++x) {
      EXPECT_EQ(panel.pixel(x, y), (x >= 4 && y >= 4) ? high : low) << x << "," << y;
    }
  }
  // A 7 x 7 grid over a 32 x 32 image: nearest patch, the last one reaching the border.
  const std::vector<std::uint8_t> big(32 * 32, 0);
  std::vector<double> weights(49, 0.0);
  weights[48] = 1.0;
  const Canvas p = attention_overlay({big.data(), 32, 32, 1}, weights, 7, 7, "", {1, 1.0, ColorMap::kViridis});
  EXPECT_EQ(p.pixel(31, 31), color_at(ColorMap::kViridis, 1));
  EXPECT_EQ(p.pixel(28, 28), color_at(ColorMap::kViridis, 1));  // 28 * 7 / 32 = 6
  EXPECT_EQ(p.pixel(27, 27), color_at(ColorMap::kViridis, 0));  // 27 * 7 / 32 = 5
}

TEST(AttentionOverlay, BadInputsAreErrors) {
  const std::vector<std::uint8_t> image(16, 0);
  EXPECT_THROW(attention_overlay({image.data(), 4, 4, 1}, {1, 2, 3}, 2, 2, ""), std::invalid_argument);
  EXPECT_THROW(image_panel({image.data(), 4, 2, 2}, 1, ""), std::invalid_argument);
  EXPECT_THROW(image_panel({nullptr, 4, 4, 1}, 1, ""), std::invalid_argument);
  EXPECT_THROW(tile_panels({}, 3), std::invalid_argument);
}

TEST(TilePanels, GridOfEqualCells) {
  std::vector<Canvas> panels;
  for (int i = 0; i < 5; ++i) panels.emplace_back(20 + 2 * i, 30, Rgb{static_cast<std::uint8_t>(i), 0, 0});
  const int gap = 10;
  const Canvas grid = tile_panels(panels, 3, "", gap);
  // Cells are 28 x 30 (the largest panel); 3 columns, 2 rows.
  EXPECT_EQ(grid.width(), 3 * 28 + 4 * gap);
  EXPECT_EQ(grid.height(), 2 * 30 + 3 * gap);
  // Panel 4 (28 wide) fills row 1, column 1; panel 0 (20 wide) is centred in its cell.
  EXPECT_EQ(grid.pixel(gap + 28 + gap, gap + 30 + gap), (Rgb{4, 0, 0}));
  EXPECT_EQ(grid.pixel(gap + 4, gap), (Rgb{0, 0, 0}));
  EXPECT_EQ(grid.pixel(gap + 3, gap), kWhite);
  EXPECT_EQ(grid.pixel(grid.width() - gap - 14, gap + 30 + gap), kWhite);  // no sixth panel
  const Canvas titled = tile_panels(panels, 3, "Attention", gap);
  EXPECT_GT(titled.height(), grid.height() + text_height(2));
}

}  // namespace
}  // namespace dls::util

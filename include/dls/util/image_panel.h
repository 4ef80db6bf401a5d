// Images with attention drawn over them, for a vision transformer's class-token attention
// over its patches, and grids of such panels in one picture.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "dls/util/canvas.h"
#include "dls/util/colormap.h"

namespace dls::util {

// An 8-bit image in HWC order (what CIFAR-10 / Fashion-MNIST readers give after a permute):
// height rows of width pixels of `channels` bytes, channels 1 (gray) or 3 (RGB).
struct ImageView {
  const std::uint8_t* pixels = nullptr;
  int height = 0;
  int width = 0;
  int channels = 3;
};

struct OverlayOptions {
  int scale = 4;       // each image pixel becomes scale x scale pixels
  double alpha = 0.5;  // weight of the colour map over the image
  ColorMap color_map = ColorMap::kInferno;
};

// The image enlarged `scale` times (nearest neighbour) with `caption` centred under it
// (the panel is widened when the caption is wider than the image).
// Throws std::invalid_argument for an empty image or channels other than 1 or 3.
Canvas image_panel(const ImageView& image, int scale, const std::string& caption);

// The image with a grid_rows x grid_cols grid of weights (row-major; e.g. 7 x 7 patch
// attention) stretched over it, nearest cell, and blended in through the colour map:
// the weights are rescaled so that their minimum is the map's start and their maximum its
// end. Throws std::invalid_argument when weights.size() != grid_rows * grid_cols.
Canvas attention_overlay(const ImageView& image, const std::vector<double>& weights, int grid_rows, int grid_cols,
                         const std::string& caption, const OverlayOptions& options = {});

// Panels in a grid, `columns` to a row, each centred in a cell as large as the largest
// panel, `gap` pixels apart, under an optional title.
Canvas tile_panels(const std::vector<Canvas>& panels, int columns, const std::string& title = "", int gap = 12);

}  // namespace dls::util

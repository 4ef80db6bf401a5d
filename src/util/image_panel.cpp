#include "dls/util/image_panel.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace dls::util {

namespace {

constexpr int kCaptionGap = 4;

void check_image(const ImageView& image, int scale) {
  if (image.pixels == nullptr || image.height <= 0 || image.width <= 0 || scale <= 0 ||
      (image.channels != 1 && image.channels != 3)) {
    throw std::invalid_argument(
        "image panel: need a non-empty 1- or 3-channel image and a "
        "positive scale, got " +
        std::to_string(image.height) + "x" + std::to_string(image.width) + "x" + std::to_string(image.channels) +
        ", scale " + std::to_string(scale));
  }
}

Rgb image_pixel(const ImageView& image, int x, int y) {
  const std::uint8_t* p = image.pixels + (static_cast<std::size_t>(y) * image.width + x) * image.channels;
  return image.channels == 1 ? Rgb{p[0], p[0], p[0]} : Rgb{p[0], p[1], p[2]};
}

// A panel: the enlarged image (each pixel coloured by `color(x, y)`) above the caption.
template <typename Color>
Canvas make_panel(const ImageView& image, int scale, const std::string& caption, Color color) {
  const int image_w = image.width * scale, image_h = image.height * scale;
  const int caption_w = caption.empty() ? 0 : text_width(caption);
  const int width = std::max(image_w, caption_w + 4);
  const int height = image_h + (caption.empty() ? 0 : kCaptionGap + text_height(1));
  Canvas panel(width, height, kWhite);
  const int left = (width - image_w) / 2;
  for (int y = 0; y < image.height; ++y) {
    for (int x = 0; x < image.width; ++x) {
      panel.fill_rect(left + x * scale, y * scale, scale, scale, color(x, y));
    }
  }
  if (!caption.empty()) panel.draw_text((width - caption_w) / 2, image_h + kCaptionGap, caption, kInk);
  return panel;
}

}  // namespace

Canvas image_panel(const ImageView& image, int scale, const std::string& caption) {
  check_image(image, scale);
  return make_panel(image, scale, caption, [&](int x, int y) { return image_pixel(image, x, y); });
}

Canvas attention_overlay(const ImageView& image, const std::vector<double>& weights, int grid_rows, int grid_cols,
                         const std::string& caption, const OverlayOptions& options) {
  check_image(image, options.scale);
  if (grid_rows <= 0 || grid_cols <= 0 || weights.size() != static_cast<std::size_t>(grid_rows) * grid_cols) {
    throw std::invalid_argument("attention overlay: " + std::to_string(weights.size()) + " weights for a " +
                                std::to_string(grid_rows) + " x " + std::to_string(grid_cols) + " grid");
  }
  double lo = 0, hi = 0;
  bool any = false;
  for (double w : weights) {
    if (!std::isfinite(w)) continue;
    lo = any ? std::min(lo, w) : w, hi = any ? std::max(hi, w) : w;
    any = true;
  }
  const double span = hi > lo ? hi - lo : 1.0;
  return make_panel(image, options.scale, caption, [&](int x, int y) {
    // Nearest cell of the weight grid for this image pixel.
    const int row = std::min(grid_rows - 1, y * grid_rows / image.height);
    const int col = std::min(grid_cols - 1, x * grid_cols / image.width);
    const double w = weights[static_cast<std::size_t>(row) * grid_cols + col];
    const Rgb over = color_at(options.color_map, std::isfinite(w) ? (w - lo) / span : NAN);
    return mix(image_pixel(image, x, y), over, options.alpha);
  });
}

Canvas tile_panels(const std::vector<Canvas>& panels, int columns, const std::string& title, int gap) {
  if (panels.empty() || columns <= 0) {
    throw std::invalid_argument("tile_panels: need at least one panel and one column");
  }
  int cell_w = 0, cell_h = 0;
  for (const Canvas& p : panels) cell_w = std::max(cell_w, p.width()), cell_h = std::max(cell_h, p.height());
  columns = std::min(columns, static_cast<int>(panels.size()));
  const int rows = (static_cast<int>(panels.size()) + columns - 1) / columns;
  const int title_scale = 2;
  const int title_h = title.empty() ? 0 : text_height(title_scale) + gap / 2;
  const int grid_w = columns * cell_w + (columns + 1) * gap;
  const int width = std::max(grid_w, title.empty() ? 0 : text_width(title, title_scale) + 2 * gap);
  Canvas canvas(width, title_h + rows * cell_h + (rows + 1) * gap, kWhite);
  if (!title.empty()) {
    canvas.draw_text((width - text_width(title, title_scale)) / 2, gap, title, kInk, title_scale);
  }
  const int left = (width - grid_w) / 2;
  for (std::size_t i = 0; i < panels.size(); ++i) {
    const int r = static_cast<int>(i) / columns, c = static_cast<int>(i) % columns;
    const Canvas& p = panels[i];
    canvas.blit(p, left + gap + c * (cell_w + gap) + (cell_w - p.width()) / 2,
                title_h + gap + r * (cell_h + gap) + (cell_h - p.height()) / 2);
  }
  return canvas;
}

}  // namespace dls::util

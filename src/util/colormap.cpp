#include "dls/util/colormap.h"

#include <algorithm>
#include <cmath>

namespace dls::util {

namespace {

// Nine equally spaced stops of matplotlib's maps (t = 0, 1/8, ..., 1).
constexpr Rgb kViridis[] = {{0x44, 0x01, 0x54}, {0x47, 0x2c, 0x7a}, {0x3b, 0x51, 0x8b},
                            {0x2c, 0x71, 0x8e}, {0x21, 0x90, 0x8d}, {0x27, 0xad, 0x81},
                            {0x5c, 0xc8, 0x63}, {0xaa, 0xdc, 0x32}, {0xfd, 0xe7, 0x25}};
constexpr Rgb kInferno[] = {{0x00, 0x00, 0x04}, {0x1f, 0x0c, 0x48}, {0x55, 0x0f, 0x6d},
                            {0x88, 0x22, 0x6a}, {0xba, 0x36, 0x55}, {0xe3, 0x59, 0x33},
                            {0xf9, 0x8e, 0x09}, {0xf9, 0xcb, 0x35}, {0xfc, 0xff, 0xa4}};
constexpr int kStops = 9;

}  // namespace

Rgb color_at(ColorMap map, double t) {
  if (std::isnan(t)) return {128, 128, 128};
  const Rgb* stops = map == ColorMap::kInferno ? kInferno : kViridis;
  const double position = std::clamp(t, 0.0, 1.0) * (kStops - 1);
  const int i = std::min(static_cast<int>(position), kStops - 2);
  return mix(stops[i], stops[i + 1], position - i);
}

Rgb readable_text_color(Rgb background) {
  const double luminance = 0.299 * background.r + 0.587 * background.g + 0.114 * background.b;
  return luminance < 140 ? kWhite : kBlack;
}

}  // namespace dls::util

// Perceptually ordered colour maps for heat maps and attention overlays.
#pragma once

#include "dls/util/canvas.h"

namespace dls::util {

enum class ColorMap {
  kViridis,  // dark blue -> green -> yellow (matplotlib's default)
  kInferno,  // black -> purple -> orange -> pale yellow (reads well over photographs)
};

// Colour at t in [0, 1] (clamped), interpolated linearly between nine stops of the map;
// NaN gives a neutral gray.
Rgb color_at(ColorMap map, double t);

// Black or white, whichever reads better on `background` (by its luminance).
Rgb readable_text_color(Rgb background);

}  // namespace dls::util

// What the pictures share (util/heat_map.cpp, util/line_plot.cpp): the frame's colour and
// the title's text scale. One definition: the unity build compiles those files together.
#pragma once

#include "dls/util/canvas.h"

namespace dls::util::plot_style {

inline constexpr Rgb kFrame{90, 90, 90};
inline constexpr int kTitleScale = 2;

}  // namespace dls::util::plot_style

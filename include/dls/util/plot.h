// Everything the programs use to draw figures: line plots of training curves, heat maps
// of attention and confusion matrices, and attention overlays on images, all written as
// PNG through the canvas.
#pragma once

#include "dls/util/heat_map.h"     // HeatMap
#include "dls/util/image_panel.h"  // image_panel, attention_overlay, tile_panels
#include "dls/util/line_plot.h"    // LinePlot

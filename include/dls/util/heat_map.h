// Heat maps of matrices as PNG: attention weights (rows = query words, columns = key
// words) and confusion matrices (rows = true class, columns = predicted class).
#pragma once

#include <string>
#include <vector>

#include "dls/util/canvas.h"
#include "dls/util/colormap.h"

namespace dls::util {

// A rows x cols matrix drawn as coloured cells with row and column labels, a title and a
// colour bar. Cells are square, 16 to 64 pixels, as large as fits in about 640 x 640; a
// matrix with few rows (or columns) gets taller (wider) cells so that it is at least 120
// pixels high (wide). Column labels are turned 90° when they do not fit under their cell.
// NaN cells are drawn gray.
//
//   HeatMap map(weights, 9, 10);
//   map.title("Attention, head 0").row_labels(spanish).col_labels(english).save("att.png");
class HeatMap {
 public:
  // `values` is row-major. Throws std::invalid_argument when values.size() != rows * cols
  // or either is not positive.
  HeatMap(std::vector<double> values, int rows, int cols);

  HeatMap& title(std::string text) {
    title_ = std::move(text);
    return *this;
  }
  HeatMap& x_label(std::string text) {
    x_label_ = std::move(text);
    return *this;
  }
  HeatMap& y_label(std::string text) {
    y_label_ = std::move(text);
    return *this;
  }
  // One label per row / column (std::invalid_argument otherwise); none by default.
  HeatMap& row_labels(std::vector<std::string> labels);
  HeatMap& col_labels(std::vector<std::string> labels);
  HeatMap& color_map(ColorMap map) {
    color_map_ = map;
    return *this;
  }
  // Values mapped to the ends of the colour map; by default the finite minimum and maximum.
  HeatMap& range(double lo, double hi);
  // Writes each value in its cell with `decimals` decimals, in black or white whichever
  // reads better on the cell, when the text fits (scale 2 if possible, else 1).
  HeatMap& annotate(int decimals = 1) {
    decimals_ = decimals;
    return *this;
  }

  // The placement of everything; the canvas size is fixed by the matrix and its labels.
  struct Layout {
    int width = 0, height = 0;  // of the whole image
    Rect matrix;                // the cells
    int cell_w = 0, cell_h = 0;
    bool vertical_col_labels = false;
    int annotation_scale = 0;  // 0 = no annotations
    Rect color_bar;
    double lo = 0, hi = 1;          // value range of the colour map
    std::vector<double> bar_ticks;  // values marked beside the colour bar
    std::vector<std::string> bar_labels;
  };
  Layout layout() const;

  Canvas render() const;
  // render, then write_png (atomic).
  void save(const std::string& path) const;

 private:
  std::string cell_text(double value) const;

  std::vector<double> values_;
  int rows_, cols_;
  std::string title_, x_label_, y_label_;
  std::vector<std::string> row_labels_, col_labels_;
  ColorMap color_map_ = ColorMap::kViridis;
  bool fixed_range_ = false;
  double lo_ = 0, hi_ = 1;
  int decimals_ = -1;  // < 0: no annotation
};

}  // namespace dls::util

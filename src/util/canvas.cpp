#include "dls/util/canvas.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "bitmap_font.h"
#include "dls/util/png.h"
#include "dls/util/utf8.h"

namespace dls::util {

namespace {

// Code points to draw: combining accents are folded into the letter before them.
std::vector<char32_t> text_code_points(std::string_view utf8) {
  std::vector<char32_t> out;
  for (char32_t c : decode_utf8(utf8)) {
    if (c >= 0x300 && c <= 0x36F && !out.empty()) {
      if (const char32_t composed = font::compose(out.back(), c)) out.back() = composed;
      continue;  // a mark the font cannot place is dropped rather than boxed
    }
    out.push_back(c);
  }
  return out;
}

// Calls ink(u, v) for every inked font pixel of the text, (u, v) in unscaled pixels from
// the top-left of the text's box.
template <typename Ink>
void for_each_ink(std::string_view utf8, Ink ink) {
  int pen = 0;
  for (char32_t c : text_code_points(utf8)) {
    const font::Glyph& g = font::glyph(c);
    for (int row = 0; row < font::kCellHeight; ++row) {
      for (int col = g.left; col < 5; ++col) {
        if (g.rows[row] & (0x10 >> col)) ink(pen + col - g.left, row);
      }
    }
    pen += g.advance;
  }
}

double distance_to_segment(double px, double py, Point a, Point b) {
  const double dx = b.x - a.x, dy = b.y - a.y;
  const double length2 = dx * dx + dy * dy;
  double t = length2 > 0 ? ((px - a.x) * dx + (py - a.y) * dy) / length2 : 0.0;
  t = std::clamp(t, 0.0, 1.0);
  return std::hypot(px - (a.x + t * dx), py - (a.y + t * dy));
}

}  // namespace

Rgb mix(Rgb under, Rgb over, double alpha) {
  const auto channel = [alpha](std::uint8_t u, std::uint8_t o) {
    return static_cast<std::uint8_t>(std::lround(u + (o - u) * alpha));
  };
  return {channel(under.r, over.r), channel(under.g, over.g), channel(under.b, over.b)};
}

int text_width(std::string_view utf8, int scale) {
  int width = 0;
  for (char32_t c : text_code_points(utf8)) width += font::glyph(c).advance;
  return width > 0 ? (width - 1) * scale : 0;  // no blank column after the last glyph
}

std::string fit_text(std::string_view utf8, int max_width, int scale) {
  if (text_width(utf8, scale) <= max_width) return std::string(utf8);
  std::string kept;
  for (char32_t c : text_code_points(utf8)) {
    const std::string longer = kept + encode_utf8(c);
    if (text_width(longer + "..", scale) > max_width) break;
    kept = longer;
  }
  return kept + "..";
}

int text_height(int scale) { return font::kCellHeight * scale; }

Canvas::Canvas(int width, int height, Rgb background) : width_(width), height_(height) {
  if (width <= 0 || height <= 0) {
    throw std::invalid_argument("canvas: bad size " + std::to_string(width) + "x" +
                                std::to_string(height));
  }
  pixels_.resize(static_cast<std::size_t>(width) * height * 3);
  fill(background);
}

Rgb Canvas::pixel(int x, int y) const {
  if (!inside(x, y)) {
    throw std::out_of_range("canvas: pixel (" + std::to_string(x) + ", " +
                            std::to_string(y) + ") outside " + std::to_string(width_) + "x" +
                            std::to_string(height_));
  }
  const std::uint8_t* p = &pixels_[(static_cast<std::size_t>(y) * width_ + x) * 3];
  return {p[0], p[1], p[2]};
}

void Canvas::set_pixel(int x, int y, Rgb color) {
  if (!inside(x, y)) return;
  std::uint8_t* p = at(x, y);
  p[0] = color.r, p[1] = color.g, p[2] = color.b;
}

void Canvas::blend_pixel(int x, int y, Rgb color, double alpha) {
  if (!inside(x, y) || alpha <= 0) return;
  set_pixel(x, y, alpha >= 1 ? color : mix(pixel(x, y), color, alpha));
}

void Canvas::fill(Rgb color) { fill_rect(0, 0, width_, height_, color); }

void Canvas::fill_rect(int x, int y, int w, int h, Rgb color) {
  const int x0 = std::max(x, 0), x1 = std::min(x + w, width_);
  const int y0 = std::max(y, 0), y1 = std::min(y + h, height_);
  for (int j = y0; j < y1; ++j) {
    for (int i = x0; i < x1; ++i) {
      std::uint8_t* p = at(i, j);
      p[0] = color.r, p[1] = color.g, p[2] = color.b;
    }
  }
}

void Canvas::draw_rect(int x, int y, int w, int h, Rgb color, int thickness) {
  fill_rect(x, y, w, thickness, color);
  fill_rect(x, y + h - thickness, w, thickness, color);
  fill_rect(x, y, thickness, h, color);
  fill_rect(x + w - thickness, y, thickness, h, color);
}

void Canvas::draw_line(Point from, Point to, Rgb color, double thickness) {
  draw_polyline({from, to}, color, thickness);
}

void Canvas::draw_polyline(const std::vector<Point>& points, Rgb color, double thickness) {
  if (points.empty()) return;
  const double reach = thickness / 2 + 1;  // pixels beyond it get no coverage
  double min_x = points[0].x, max_x = min_x, min_y = points[0].y, max_y = min_y;
  for (const Point& p : points) {
    min_x = std::min(min_x, p.x), max_x = std::max(max_x, p.x);
    min_y = std::min(min_y, p.y), max_y = std::max(max_y, p.y);
  }
  // Coverage of each pixel of the bounding box: the maximum over segments, so that joints
  // are not painted twice.
  const int bx0 = std::max(0, static_cast<int>(std::floor(min_x - reach)));
  const int by0 = std::max(0, static_cast<int>(std::floor(min_y - reach)));
  const int bx1 = std::min(width_, static_cast<int>(std::ceil(max_x + reach)) + 1);
  const int by1 = std::min(height_, static_cast<int>(std::ceil(max_y + reach)) + 1);
  if (bx0 >= bx1 || by0 >= by1) return;
  const int bw = bx1 - bx0;
  std::vector<float> coverage(static_cast<std::size_t>(bw) * (by1 - by0), 0.0f);
  const std::size_t segments = std::max<std::size_t>(1, points.size() - 1);
  for (std::size_t s = 0; s < segments; ++s) {
    const Point a = points[s], b = points[std::min(s + 1, points.size() - 1)];
    const int x0 = std::max(bx0, static_cast<int>(std::floor(std::min(a.x, b.x) - reach)));
    const int x1 = std::min(bx1, static_cast<int>(std::ceil(std::max(a.x, b.x) + reach)) + 1);
    const int y0 = std::max(by0, static_cast<int>(std::floor(std::min(a.y, b.y) - reach)));
    const int y1 = std::min(by1, static_cast<int>(std::ceil(std::max(a.y, b.y) + reach)) + 1);
    for (int j = y0; j < y1; ++j) {
      for (int i = x0; i < x1; ++i) {
        const double d = distance_to_segment(i + 0.5, j + 0.5, a, b);
        const float c = static_cast<float>(std::clamp(thickness / 2 + 0.5 - d, 0.0, 1.0));
        float& cell = coverage[static_cast<std::size_t>(j - by0) * bw + (i - bx0)];
        cell = std::max(cell, c);
      }
    }
  }
  for (int j = by0; j < by1; ++j) {
    for (int i = bx0; i < bx1; ++i) {
      blend_pixel(i, j, color, coverage[static_cast<std::size_t>(j - by0) * bw + (i - bx0)]);
    }
  }
}

void Canvas::draw_text(int x, int y, std::string_view utf8, Rgb color, int scale) {
  for_each_ink(utf8, [&](int u, int v) {
    fill_rect(x + u * scale, y + v * scale, scale, scale, color);
  });
}

void Canvas::draw_text_vertical(int x, int y, std::string_view utf8, Rgb color, int scale) {
  const int length = text_width(utf8, scale);
  for_each_ink(utf8, [&](int u, int v) {
    // Rotating (u, v) by 90° counter-clockwise: along the text goes up the canvas.
    fill_rect(x + v * scale, y + length - (u + 1) * scale, scale, scale, color);
  });
}

void Canvas::blit(const Canvas& source, int x, int y) {
  for (int j = 0; j < source.height(); ++j) {
    for (int i = 0; i < source.width(); ++i) set_pixel(x + i, y + j, source.pixel(i, j));
  }
}

void Canvas::save_png(const std::string& path) const {
  write_png(path, width_, height_, 3, pixels_.data());
}

}  // namespace dls::util

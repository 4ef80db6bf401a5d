// An RGB raster to draw plots on, drawn by cairo (libcairo2): rectangles, anti-aliased
// lines, and anti-aliased text in DejaVu Sans (fonts-dejavu-core, through fontconfig),
// horizontal or rotated 90°, at an integer size step `scale`; written as PNG by cairo.
// Coordinates are pixels, x to the right and y down from the top-left corner; everything
// drawn outside the canvas is clipped.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

struct _cairo_surface;  // cairo_surface_t, kept out of the header

namespace dls::util {

struct Rgb {
  std::uint8_t r = 0, g = 0, b = 0;
  friend bool operator==(Rgb a, Rgb b) { return a.r == b.r && a.g == b.g && a.b == b.b; }
  friend bool operator!=(Rgb a, Rgb b) { return !(a == b); }
};

inline constexpr Rgb kWhite{255, 255, 255};
inline constexpr Rgb kBlack{0, 0, 0};
inline constexpr Rgb kInk{40, 40, 40};  // text and axes of every picture

// Mixes `over` into `under`: alpha 0 keeps `under`, 1 gives `over`.
Rgb mix(Rgb under, Rgb over, double alpha);

struct Point {
  double x = 0, y = 0;
};

// Pixels x .. x + w - 1, y .. y + h - 1.
struct Rect {
  int x = 0, y = 0, w = 0, h = 0;
};

// Text is set at 11 * scale pixels (scale 1: axis labels, 2: titles), after Unicode NFC
// so that "e" + U+0301 and "é" look the same. text_width: pixels from the pen's start to
// its end (proportional glyphs, digits all the same width). text_height: one line, accents
// and descenders included (14 pixels at scale 1). text_cap_height: a capital or a digit.
int text_width(std::string_view utf8, int scale = 1);
int text_height(int scale = 1);
int text_cap_height(int scale = 1);
// `utf8` itself when it is at most `max_width` pixels wide, else its longest prefix (whole
// letters) followed by ".." that is.
std::string fit_text(std::string_view utf8, int max_width, int scale = 1);

class Canvas {
 public:
  Canvas(int width, int height, Rgb background = kWhite);
  Canvas(const Canvas& other);
  Canvas& operator=(const Canvas& other);
  Canvas(Canvas&& other) noexcept;
  Canvas& operator=(Canvas&& other) noexcept;
  ~Canvas();

  int width() const { return width_; }
  int height() const { return height_; }
  // height rows of width RGB triples, top row first.
  std::vector<std::uint8_t> pixels() const;

  // Throws std::out_of_range outside the canvas.
  Rgb pixel(int x, int y) const;
  void set_pixel(int x, int y, Rgb color);
  void blend_pixel(int x, int y, Rgb color, double alpha);

  void fill(Rgb color);
  void fill_rect(int x, int y, int w, int h, Rgb color);
  // Outline `thickness` pixels wide, inside the rectangle.
  void draw_rect(int x, int y, int w, int h, Rgb color, int thickness = 1);

  // Anti-aliased lines with round ends; pixel centres are at (i + 0.5, j + 0.5).
  void draw_line(Point from, Point to, Rgb color, double thickness = 1.0);
  // Joined segments stroked as one path (round joins, no darker dots at the joints).
  void draw_polyline(const std::vector<Point>& points, Rgb color, double thickness = 1.0);

  // Text whose line box has its top-left corner at (x, y); see text_width / text_height.
  void draw_text(int x, int y, std::string_view utf8, Rgb color, int scale = 1);
  // Text rotated 90° counter-clockwise (read from bottom to top), as on a vertical axis;
  // (x, y) is the top-left corner of its box, text_height wide and text_width tall.
  void draw_text_vertical(int x, int y, std::string_view utf8, Rgb color, int scale = 1);

  // Copies `source` with its top-left corner at (x, y).
  void blit(const Canvas& source, int x, int y);

  // The PNG file's bytes (8-bit RGB, encoded by cairo).
  std::string encode_png() const;
  // encode_png, written with write_file_atomically: `path` is either the complete image or
  // untouched. Throws std::runtime_error naming the path when it cannot be written.
  void save_png(const std::string& path) const;

 private:
  bool inside(int x, int y) const { return x >= 0 && y >= 0 && x < width_ && y < height_; }
  std::uint32_t* row(int y) const;  // cairo's RGB24 pixels, 0x00RRGGBB

  int width_;
  int height_;
  _cairo_surface* surface_ = nullptr;  // owned; an image surface, CAIRO_FORMAT_RGB24
};

}  // namespace dls::util

#include "dls/util/canvas.h"

#include <cairo.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <stdexcept>

#include "dls/util/file_io.h"
#include "dls/util/utf8.h"

namespace dls::util {

namespace {

constexpr double kFontPixels = 11.0;  // at scale 1; DejaVu Sans' line is then 14 pixels
constexpr double kPi = 3.14159265358979323846;

using Context = std::unique_ptr<cairo_t, decltype(&cairo_destroy)>;

std::string nfc(std::string_view utf8) {
  std::string out;
  for (char32_t c : nfc_code_points(utf8)) append_utf8(out, c);
  return out;
}

// The same font, size, anti-aliasing and hinting for measuring and drawing, so that
// text_width is what draw_text covers. Metrics are hinted to whole pixels.
void set_font(cairo_t* cr, int scale) {
  cairo_select_font_face(cr, "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
  cairo_set_font_size(cr, kFontPixels * std::max(scale, 1));
  cairo_font_options_t* options = cairo_font_options_create();
  cairo_font_options_set_antialias(options, CAIRO_ANTIALIAS_GRAY);
  cairo_font_options_set_hint_style(options, CAIRO_HINT_STYLE_SLIGHT);
  cairo_font_options_set_hint_metrics(options, CAIRO_HINT_METRICS_ON);
  cairo_set_font_options(cr, options);
  cairo_font_options_destroy(options);
}

// A context on a 1x1 surface for measuring text, one per thread (cairo contexts are not
// shared between threads).
cairo_t* measuring_context(int scale) {
  struct Measurer {
    cairo_surface_t* surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 1, 1);
    cairo_t* cr = cairo_create(surface);
    ~Measurer() { cairo_destroy(cr), cairo_surface_destroy(surface); }
  };
  thread_local Measurer measurer;
  set_font(measurer.cr, scale);
  return measurer.cr;
}

// Ascent (from the top of the line to the baseline) and whole line height, in pixels.
struct LineMetrics {
  int ascent = 0, height = 0;
};

LineMetrics line_metrics(int scale) {
  cairo_font_extents_t e;
  cairo_font_extents(measuring_context(scale), &e);
  const int ascent = static_cast<int>(std::ceil(e.ascent));
  return {ascent, ascent + static_cast<int>(std::ceil(e.descent))};
}

void set_color(cairo_t* cr, Rgb c) { cairo_set_source_rgb(cr, c.r / 255.0, c.g / 255.0, c.b / 255.0); }

cairo_status_t append_bytes(void* closure, const unsigned char* data, unsigned int length) {
  static_cast<std::string*>(closure)->append(reinterpret_cast<const char*>(data), length);
  return CAIRO_STATUS_SUCCESS;
}

cairo_surface_t* new_surface(int width, int height) {
  cairo_surface_t* s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, width, height);
  if (cairo_surface_status(s) != CAIRO_STATUS_SUCCESS) {
    const std::string why = cairo_status_to_string(cairo_surface_status(s));
    cairo_surface_destroy(s);
    throw std::runtime_error("canvas: cannot allocate " + std::to_string(width) + "x" + std::to_string(height) + ": " +
                             why);
  }
  return s;
}

}  // namespace

Rgb mix(Rgb under, Rgb over, double alpha) {
  const auto channel = [alpha](std::uint8_t u, std::uint8_t o) {
    return static_cast<std::uint8_t>(std::lround(u + (o - u) * alpha));
  };
  return {channel(under.r, over.r), channel(under.g, over.g), channel(under.b, over.b)};
}

int text_width(std::string_view utf8, int scale) {
  if (utf8.empty()) return 0;
  cairo_text_extents_t e;
  cairo_text_extents(measuring_context(scale), nfc(utf8).c_str(), &e);
  return static_cast<int>(std::ceil(e.x_advance));
}

int text_height(int scale) { return line_metrics(scale).height; }

int text_cap_height(int scale) {
  cairo_text_extents_t e;
  cairo_text_extents(measuring_context(scale), "H", &e);
  return static_cast<int>(std::lround(e.height));
}

std::string fit_text(std::string_view utf8, int max_width, int scale) {
  if (text_width(utf8, scale) <= max_width) return std::string(utf8);
  std::string kept;
  for (char32_t c : nfc_code_points(utf8)) {
    const std::string longer = kept + encode_utf8(c);
    if (text_width(longer + "..", scale) > max_width) break;
    kept = longer;
  }
  return kept + "..";
}

Canvas::Canvas(int width, int height, Rgb background) : width_(width), height_(height) {
  if (width <= 0 || height <= 0) {
    throw std::invalid_argument("canvas: bad size " + std::to_string(width) + "x" + std::to_string(height));
  }
  surface_ = new_surface(width, height);
  fill(background);
}

Canvas::Canvas(const Canvas& other) : Canvas(other.width_, other.height_) { blit(other, 0, 0); }

Canvas& Canvas::operator=(const Canvas& other) {
  if (this != &other) *this = Canvas(other);
  return *this;
}

Canvas::Canvas(Canvas&& other) noexcept : width_(other.width_), height_(other.height_), surface_(other.surface_) {
  other.surface_ = nullptr;
}

Canvas& Canvas::operator=(Canvas&& other) noexcept {
  std::swap(width_, other.width_);
  std::swap(height_, other.height_);
  std::swap(surface_, other.surface_);
  return *this;
}

Canvas::~Canvas() {
  if (surface_ != nullptr) cairo_surface_destroy(surface_);
}

std::uint32_t* Canvas::row(int y) const {
  cairo_surface_flush(surface_);
  unsigned char* data = cairo_image_surface_get_data(surface_);
  return reinterpret_cast<std::uint32_t*>(data +
                                          static_cast<std::size_t>(y) * cairo_image_surface_get_stride(surface_));
}

std::vector<std::uint8_t> Canvas::pixels() const {
  std::vector<std::uint8_t> out;
  out.reserve(static_cast<std::size_t>(width_) * height_ * 3);
  for (int y = 0; y < height_; ++y) {
    const std::uint32_t* r = row(y);
    for (int x = 0; x < width_; ++x) {
      out.push_back(static_cast<std::uint8_t>(r[x] >> 16));
      out.push_back(static_cast<std::uint8_t>(r[x] >> 8));
      out.push_back(static_cast<std::uint8_t>(r[x]));
    }
  }
  return out;
}

Rgb Canvas::pixel(int x, int y) const {
  if (!inside(x, y)) {
    throw std::out_of_range("canvas: pixel (" + std::to_string(x) + ", " + std::to_string(y) + ") outside " +
                            std::to_string(width_) + "x" + std::to_string(height_));
  }
  const std::uint32_t p = row(y)[x];
  return {static_cast<std::uint8_t>(p >> 16), static_cast<std::uint8_t>(p >> 8), static_cast<std::uint8_t>(p)};
}

void Canvas::set_pixel(int x, int y, Rgb color) {
  if (!inside(x, y)) return;
  row(y)[x] = (std::uint32_t{color.r} << 16) | (std::uint32_t{color.g} << 8) | color.b;
  cairo_surface_mark_dirty_rectangle(surface_, x, y, 1, 1);
}

void Canvas::blend_pixel(int x, int y, Rgb color, double alpha) {
  if (!inside(x, y) || alpha <= 0) return;
  set_pixel(x, y, alpha >= 1 ? color : mix(pixel(x, y), color, alpha));
}

void Canvas::fill(Rgb color) { fill_rect(0, 0, width_, height_, color); }

void Canvas::fill_rect(int x, int y, int w, int h, Rgb color) {
  if (w <= 0 || h <= 0) return;
  Context cr(cairo_create(surface_), &cairo_destroy);
  set_color(cr.get(), color);
  cairo_rectangle(cr.get(), x, y, w, h);  // whole pixels: no anti-aliased edge
  cairo_fill(cr.get());
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
  Context cr(cairo_create(surface_), &cairo_destroy);
  set_color(cr.get(), color);
  cairo_set_line_width(cr.get(), thickness);
  cairo_set_line_cap(cr.get(), CAIRO_LINE_CAP_ROUND);
  cairo_set_line_join(cr.get(), CAIRO_LINE_JOIN_ROUND);
  cairo_move_to(cr.get(), points[0].x, points[0].y);
  // A single point still gets its round dot: a zero-length segment with round caps.
  if (points.size() == 1) cairo_line_to(cr.get(), points[0].x, points[0].y);
  for (std::size_t i = 1; i < points.size(); ++i) cairo_line_to(cr.get(), points[i].x, points[i].y);
  cairo_stroke(cr.get());
}

void Canvas::draw_text(int x, int y, std::string_view utf8, Rgb color, int scale) {
  if (utf8.empty()) return;
  Context cr(cairo_create(surface_), &cairo_destroy);
  set_font(cr.get(), scale);
  set_color(cr.get(), color);
  cairo_move_to(cr.get(), x, y + line_metrics(scale).ascent);
  cairo_show_text(cr.get(), nfc(utf8).c_str());
}

void Canvas::draw_text_vertical(int x, int y, std::string_view utf8, Rgb color, int scale) {
  if (utf8.empty()) return;
  Context cr(cairo_create(surface_), &cairo_destroy);
  set_font(cr.get(), scale);
  set_color(cr.get(), color);
  // (u along the text, v down the line) goes to (x + v, y + width - u): read bottom to top.
  cairo_translate(cr.get(), x, y + text_width(utf8, scale));
  cairo_rotate(cr.get(), -kPi / 2);
  cairo_move_to(cr.get(), 0, line_metrics(scale).ascent);
  cairo_show_text(cr.get(), nfc(utf8).c_str());
}

void Canvas::blit(const Canvas& source, int x, int y) {
  Context cr(cairo_create(surface_), &cairo_destroy);
  cairo_set_source_surface(cr.get(), source.surface_, x, y);
  cairo_paint(cr.get());
}

std::string Canvas::encode_png() const {
  std::string png;
  const cairo_status_t status = cairo_surface_write_to_png_stream(surface_, append_bytes, &png);
  if (status != CAIRO_STATUS_SUCCESS) {
    throw std::runtime_error(std::string("PNG encoding failed: ") + cairo_status_to_string(status));
  }
  return png;
}

void Canvas::save_png(const std::string& path) const { write_text_atomically(path, encode_png()); }

}  // namespace dls::util

#include "dls/util/png_image.h"

#include <cairo.h>
#include <zlib.h>

#include <cstring>
#include <memory>
#include <stdexcept>

namespace dls::util {

namespace {

constexpr unsigned char kSignature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};

std::uint32_t big_endian(const std::string& bytes, std::size_t at) {
  std::uint32_t v = 0;
  for (std::size_t i = 0; i < 4; ++i) v = (v << 8) | static_cast<unsigned char>(bytes[at + i]);
  return v;
}

struct Reader {
  const std::string* bytes;
  std::size_t at = 0;
};

cairo_status_t read_bytes(void* closure, unsigned char* data, unsigned int length) {
  auto* reader = static_cast<Reader*>(closure);
  if (reader->bytes->size() - reader->at < length) return CAIRO_STATUS_READ_ERROR;
  std::memcpy(data, reader->bytes->data() + reader->at, length);
  reader->at += length;
  return CAIRO_STATUS_SUCCESS;
}

// Walks the chunks after the signature (length, type, data, CRC-32 of type and data) up to
// IEND. cairo reports every libpng error as "out of memory", so damage is named here first:
// a flipped byte fails its chunk's CRC, a cut file ends inside a chunk.
void check_chunks(const std::string& bytes) {
  std::size_t at = 8;
  while (true) {
    if (bytes.size() - at < 12)
      throw std::invalid_argument("not a readable PNG image: it ends at byte " + std::to_string(bytes.size()) +
                                  " before its IEND chunk (truncated)");
    const std::size_t length = big_endian(bytes, at);
    const std::string type = bytes.substr(at + 4, 4);
    if (length > bytes.size() - at - 12)
      throw std::invalid_argument("not a readable PNG image: its " + type + " chunk at byte " + std::to_string(at) +
                                  " runs past the end of the file (truncated)");
    const auto* data = reinterpret_cast<const Bytef*>(bytes.data() + at + 4);
    const auto crc = crc32(crc32(0L, Z_NULL, 0), data, static_cast<uInt>(length + 4));
    if (crc != big_endian(bytes, at + 8 + length))
      throw std::invalid_argument("not a readable PNG image: its " + type + " chunk at byte " + std::to_string(at) +
                                  " fails its checksum (the file is damaged)");
    if (type == "IEND") return;
    at += 12 + length;
  }
}

}  // namespace

PngSize read_png_size(const std::string& bytes) {
  // Signature (8), then the IHDR chunk: length (4), "IHDR" (4), width (4), height (4).
  if (bytes.size() < 24 || std::memcmp(bytes.data(), kSignature, 8) != 0 || bytes.compare(12, 4, "IHDR") != 0)
    throw std::invalid_argument("not a PNG image");
  const auto width = big_endian(bytes, 16), height = big_endian(bytes, 20);
  if (width == 0 || height == 0 || width > (1u << 30) || height > (1u << 30))
    throw std::invalid_argument("not a PNG image (its size is " + std::to_string(width) + "x" + std::to_string(height) +
                                ")");
  return {static_cast<int>(width), static_cast<int>(height)};
}

bool RgbImage::is_grey() const {
  for (std::size_t i = 0; i + 2 < rgb.size(); i += 3) {
    if (rgb[i] != rgb[i + 1] || rgb[i] != rgb[i + 2]) return false;
  }
  return true;
}

RgbImage decode_png(const std::string& bytes) {
  const auto size = read_png_size(bytes);
  // cairo's image surfaces (and so its PNG reader) stop at 32767 pixels a side.
  constexpr int kLongestSide = 32767;
  if (size.width > kLongestSide || size.height > kLongestSide)
    throw std::invalid_argument("a PNG image of " + std::to_string(size.width) + "x" + std::to_string(size.height) +
                                " pixels: the PNG reader takes sides of at most " + std::to_string(kLongestSide) +
                                " pixels (a JPEG may have longer ones)");
  check_chunks(bytes);
  Reader reader{&bytes};
  std::unique_ptr<cairo_surface_t, decltype(&cairo_surface_destroy)> surface(
      cairo_image_surface_create_from_png_stream(read_bytes, &reader), cairo_surface_destroy);
  const auto status = cairo_surface_status(surface.get());
  // Its chunks are whole, so what libpng refused (reported by cairo as "out of memory") is
  // their content: a crafted stream with correct checksums.
  if (status == CAIRO_STATUS_NO_MEMORY)
    throw std::invalid_argument("not a readable PNG image: its pixel data cannot be decoded");
  if (status != CAIRO_STATUS_SUCCESS)
    throw std::invalid_argument(std::string("not a readable PNG image: ") + cairo_status_to_string(status));
  // One 0x00RRGGBB word per pixel, transparency over black. cairo's ARGB32 is premultiplied,
  // so its colour bytes are the pixel over black already, and RGB24's are the pixel: read as
  // they are (no second copy of a large image). Other formats (16-bit PNGs come as float
  // formats in newer cairo) are painted onto an opaque RGB24 surface.
  RgbImage image;
  image.width = cairo_image_surface_get_width(surface.get());
  image.height = cairo_image_surface_get_height(surface.get());
  const auto format = cairo_image_surface_get_format(surface.get());
  std::unique_ptr<cairo_surface_t, decltype(&cairo_surface_destroy)> opaque(nullptr, cairo_surface_destroy);
  cairo_surface_t* pixels = surface.get();
  if (format != CAIRO_FORMAT_ARGB32 && format != CAIRO_FORMAT_RGB24) {
    opaque.reset(cairo_image_surface_create(CAIRO_FORMAT_RGB24, image.width, image.height));
    std::unique_ptr<cairo_t, decltype(&cairo_destroy)> cr(cairo_create(opaque.get()), cairo_destroy);
    cairo_set_source_rgb(cr.get(), 0, 0, 0);
    cairo_paint(cr.get());
    cairo_set_source_surface(cr.get(), surface.get(), 0, 0);
    cairo_paint(cr.get());
    pixels = opaque.get();
  }
  cairo_surface_flush(pixels);
  if (cairo_surface_status(pixels) != CAIRO_STATUS_SUCCESS) throw std::invalid_argument("the PNG image is too large");
  const int stride = cairo_image_surface_get_stride(pixels);
  const unsigned char* data = cairo_image_surface_get_data(pixels);
  image.rgb.resize(static_cast<std::size_t>(image.width) * static_cast<std::size_t>(image.height) * 3);
  for (int y = 0; y < image.height; ++y) {
    for (int x = 0; x < image.width; ++x) {
      std::uint32_t pixel = 0;
      std::memcpy(&pixel, data + static_cast<std::size_t>(y) * stride + static_cast<std::size_t>(x) * 4, 4);
      auto* out = &image.rgb[(static_cast<std::size_t>(y) * image.width + x) * 3];
      out[0] = static_cast<std::uint8_t>(pixel >> 16);
      out[1] = static_cast<std::uint8_t>(pixel >> 8);
      out[2] = static_cast<std::uint8_t>(pixel);
    }
  }
  return image;
}

}  // namespace dls::util

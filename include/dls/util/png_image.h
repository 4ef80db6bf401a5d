// PNG images read from memory by cairo (libcairo2, which the plots already use): what
// translate_server decodes from an uploaded image. The header is read first, so that a
// small file claiming a huge image is refused before anything is decoded.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace dls::util {

// Width and height from a PNG's IHDR chunk. Throws std::invalid_argument ("not a PNG
// image") when the bytes do not start with the PNG signature and an IHDR chunk.
struct PngSize {
  int width = 0, height = 0;
};
PngSize read_png_size(const std::string& bytes);

// The pixels of a PNG, RGB interleaved [H, W, 3]. Transparency is composited over black
// (cairo's premultiplied alpha); grey PNGs come back with r = g = b. Throws
// std::invalid_argument naming what cairo could not read.
struct RgbImage {
  int width = 0, height = 0;
  std::vector<std::uint8_t> rgb;

  // Every pixel has r = g = b (a grey image, whatever its PNG colour type).
  bool is_grey() const;
};
RgbImage decode_png(const std::string& bytes);

}  // namespace dls::util

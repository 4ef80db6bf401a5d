// Test helper: a minimal PNG reader (8-bit gray/RGB/RGBA, no interlace, all five filter
// types) that checks every chunk's CRC, so that tests can read back what the library wrote.
#pragma once

#include <zlib.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace dls::test {

struct DecodedPng {
  int width = 0, height = 0, channels = 0;
  std::vector<std::uint8_t> pixels;  // HWC
  std::vector<std::string> chunk_types;
};

inline std::uint32_t read_u32(const std::string& bytes, std::size_t at) {
  if (at + 4 > bytes.size()) throw std::runtime_error("png: truncated at byte " + std::to_string(at));
  return (std::uint32_t(std::uint8_t(bytes[at])) << 24) | (std::uint32_t(std::uint8_t(bytes[at + 1])) << 16) |
         (std::uint32_t(std::uint8_t(bytes[at + 2])) << 8) | std::uint32_t(std::uint8_t(bytes[at + 3]));
}

inline int paeth(int a, int b, int c) {
  const int p = a + b - c, pa = std::abs(p - a), pb = std::abs(p - b), pc = std::abs(p - c);
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

inline DecodedPng decode_png(const std::string& bytes) {
  if (bytes.compare(0, 8, std::string("\x89PNG\r\n\x1a\n", 8)) != 0) throw std::runtime_error("png: bad signature");
  DecodedPng png;
  std::string idat;
  for (std::size_t at = 8; at < bytes.size();) {
    const std::uint32_t length = read_u32(bytes, at);
    if (at + 12 + length > bytes.size()) throw std::runtime_error("png: chunk past the end");
    const std::string type = bytes.substr(at + 4, 4);
    const std::string data = bytes.substr(at + 8, length);
    const auto crc = crc32(crc32(0L, Z_NULL, 0), reinterpret_cast<const Bytef*>(bytes.data() + at + 4), length + 4);
    if (crc != read_u32(bytes, at + 8 + length)) throw std::runtime_error("png: bad CRC in " + type);
    png.chunk_types.push_back(type);
    if (type == "IHDR") {
      png.width = static_cast<int>(read_u32(data, 0));
      png.height = static_cast<int>(read_u32(data, 4));
      if (data[8] != 8 || data[10] != 0 || data[11] != 0 || data[12] != 0)
        throw std::runtime_error("png: unsupported IHDR");
      const int color_type = data[9];
      png.channels = color_type == 0 ? 1 : color_type == 2 ? 3 : color_type == 6 ? 4 : 0;
      if (png.channels == 0) throw std::runtime_error("png: unsupported colour type");
    } else if (type == "IDAT") {
      idat += data;
    }
    at += 12 + length;
  }
  const std::size_t stride = static_cast<std::size_t>(png.width) * png.channels;
  uLongf size = static_cast<uLongf>((stride + 1) * png.height);
  std::string raw(size, '\0');
  if (uncompress(reinterpret_cast<Bytef*>(raw.data()), &size, reinterpret_cast<const Bytef*>(idat.data()),
                 static_cast<uLong>(idat.size())) != Z_OK ||
      size != raw.size()) {
    throw std::runtime_error("png: IDAT does not inflate to the image size");
  }
  png.pixels.resize(stride * png.height);
  for (int y = 0; y < png.height; ++y) {
    const int filter = static_cast<std::uint8_t>(raw[y * (stride + 1)]);
    for (std::size_t i = 0; i < stride; ++i) {
      const int x = static_cast<std::uint8_t>(raw[y * (stride + 1) + 1 + i]);
      const int a = i >= static_cast<std::size_t>(png.channels) ? png.pixels[y * stride + i - png.channels] : 0;
      const int b = y > 0 ? png.pixels[(y - 1) * stride + i] : 0;
      const int c =
          (y > 0 && i >= static_cast<std::size_t>(png.channels)) ? png.pixels[(y - 1) * stride + i - png.channels] : 0;
      const int predictor = filter == 0   ? 0
                            : filter == 1 ? a
                            : filter == 2 ? b
                            : filter == 3 ? (a + b) / 2
                                          : paeth(a, b, c);
      if (filter > 4) throw std::runtime_error("png: bad filter type");
      png.pixels[y * stride + i] = static_cast<std::uint8_t>(x + predictor);
    }
  }
  return png;
}

}  // namespace dls::test

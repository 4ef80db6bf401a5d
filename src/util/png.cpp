#include "dls/util/png.h"

#include <zlib.h>

#include <stdexcept>

#include "dls/util/file_io.h"

namespace dls::util {

namespace {

void put_u32(std::string* out, std::uint32_t value) {
  for (int shift = 24; shift >= 0; shift -= 8) out->push_back(static_cast<char>(value >> shift));
}

// A chunk is length, type, data, and a CRC-32 over type and data.
void put_chunk(std::string* out, const char type[4], const std::string& data) {
  put_u32(out, static_cast<std::uint32_t>(data.size()));
  const std::size_t type_at = out->size();
  out->append(type, 4);
  out->append(data);
  const auto* crc_bytes = reinterpret_cast<const Bytef*>(out->data() + type_at);
  put_u32(out, static_cast<std::uint32_t>(
                   crc32(crc32(0L, Z_NULL, 0), crc_bytes, static_cast<uInt>(4 + data.size()))));
}

std::string deflate_bytes(const std::string& raw) {
  uLongf size = compressBound(static_cast<uLong>(raw.size()));
  std::string out(size, '\0');
  const int status = compress2(reinterpret_cast<Bytef*>(out.data()), &size,
                               reinterpret_cast<const Bytef*>(raw.data()),
                               static_cast<uLong>(raw.size()), Z_DEFAULT_COMPRESSION);
  if (status != Z_OK) throw std::runtime_error("png: zlib compress2 failed (" +
                                               std::to_string(status) + ")");
  out.resize(size);
  return out;
}

}  // namespace

std::string encode_png(int width, int height, int channels, const std::uint8_t* pixels) {
  if (width <= 0 || height <= 0 || pixels == nullptr) {
    throw std::invalid_argument("png: empty image (" + std::to_string(width) + "x" +
                                std::to_string(height) + ")");
  }
  int color_type = 0;
  switch (channels) {
    case 1: color_type = 0; break;  // grayscale
    case 3: color_type = 2; break;  // truecolour
    case 4: color_type = 6; break;  // truecolour with alpha
    default:
      throw std::invalid_argument("png: channels must be 1, 3 or 4, not " +
                                  std::to_string(channels));
  }
  const std::size_t row_bytes = static_cast<std::size_t>(width) * channels;
  // Raw scanlines: a filter byte (0 = none) before each row.
  std::string raw;
  raw.reserve((row_bytes + 1) * height);
  for (int y = 0; y < height; ++y) {
    raw.push_back('\0');
    raw.append(reinterpret_cast<const char*>(pixels) + y * row_bytes, row_bytes);
  }
  std::string header;
  put_u32(&header, static_cast<std::uint32_t>(width));
  put_u32(&header, static_cast<std::uint32_t>(height));
  header += static_cast<char>(8);           // bit depth
  header += static_cast<char>(color_type);
  header += std::string(3, '\0');           // deflate, adaptive filtering, no interlace

  std::string png("\x89PNG\r\n\x1a\n", 8);
  put_chunk(&png, "IHDR", header);
  put_chunk(&png, "IDAT", deflate_bytes(raw));
  put_chunk(&png, "IEND", "");
  return png;
}

void write_png(const std::string& path, int width, int height, int channels,
               const std::uint8_t* pixels) {
  std::string png;
  try {
    png = encode_png(width, height, channels, pixels);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(path + ": " + e.what());
  }
  write_text_atomically(path, png);
}

}  // namespace dls::util

// PNG encoding with zlib only (8-bit grayscale, RGB or RGBA; no interlacing).
#pragma once

#include <cstdint>
#include <string>

namespace dls::util {

// The bytes of a PNG file. `pixels` holds height rows of width * channels bytes, top row
// first (HWC order); channels is 1 (gray), 3 (RGB) or 4 (RGBA). Every row is stored with
// filter type 0 and the whole image deflated at zlib's default level.
// Throws std::invalid_argument for a bad size or channel count.
std::string encode_png(int width, int height, int channels, const std::uint8_t* pixels);

// encode_png, written with write_file_atomically: `path` is either the complete image or
// untouched. Throws std::runtime_error naming the path when it cannot be written.
void write_png(const std::string& path, int width, int height, int channels,
               const std::uint8_t* pixels);

}  // namespace dls::util

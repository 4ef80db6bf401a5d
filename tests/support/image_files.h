// Image files written by the tests: PNG through the project's canvas, JPEG through
// libjpeg-turbo's encoder (the library itself only decodes), and folders of them in the
// layout vit_train --image-folder reads.
#pragma once

// jpeglib.h uses size_t and FILE without including their headers.
#include <cstddef>
#include <cstdio>

#include <jpeglib.h>

#include <filesystem>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "dls/util/canvas.h"
#include "dls/util/png_image.h"
#include "util/temp_files.h"

namespace dls::test {

// A width x height image of one colour, with a darker square in one corner so that it is not flat.
inline util::RgbImage solid_image(int width, int height, std::uint8_t r, std::uint8_t g, std::uint8_t b) {
  util::RgbImage image;
  image.width = width;
  image.height = height;
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      const bool corner = x < width / 4 && y < height / 4;
      for (const auto c : {r, g, b}) image.rgb.push_back(static_cast<std::uint8_t>(corner ? c / 2 : c));
    }
  }
  return image;
}

inline std::string png_of(const util::RgbImage& image) {
  util::Canvas canvas(image.width, image.height);
  for (int y = 0; y < image.height; ++y) {
    for (int x = 0; x < image.width; ++x) {
      const auto* p = image.rgb.data() + (static_cast<std::size_t>(y) * image.width + x) * 3;
      canvas.set_pixel(x, y, {p[0], p[1], p[2]});
    }
  }
  return canvas.encode_png();
}

// `width` x `height` pixels of `components` bytes encoded by libjpeg-turbo in colour space
// `space`: `configure(info)` sets what the defaults do not (quality, stored colour space, a
// scan script), `fill(y, row)` writes row y.
template <class Configure, class Fill>
std::string encode_jpeg(int width, int height, int components, J_COLOR_SPACE space, Configure configure, Fill fill) {
  jpeg_compress_struct info{};
  jpeg_error_mgr errors{};
  info.err = jpeg_std_error(&errors);
  jpeg_create_compress(&info);
  unsigned char* buffer = nullptr;
  unsigned long size = 0;
  jpeg_mem_dest(&info, &buffer, &size);
  info.image_width = static_cast<JDIMENSION>(width);
  info.image_height = static_cast<JDIMENSION>(height);
  info.input_components = components;
  info.in_color_space = space;
  jpeg_set_defaults(&info);
  configure(info);
  jpeg_start_compress(&info, TRUE);
  std::vector<unsigned char> row(static_cast<std::size_t>(width) * components);
  while (info.next_scanline < info.image_height) {
    fill(static_cast<int>(info.next_scanline), row.data());
    unsigned char* rows[] = {row.data()};
    jpeg_write_scanlines(&info, rows, 1);
  }
  jpeg_finish_compress(&info);
  jpeg_destroy_compress(&info);
  std::string bytes(reinterpret_cast<char*>(buffer), size);
  std::free(buffer);
  return bytes;
}

inline std::string jpeg_of(const util::RgbImage& image, int quality = 95, bool grey = false) {
  return encode_jpeg(
      image.width, image.height, grey ? 1 : 3, grey ? JCS_GRAYSCALE : JCS_RGB,
      [&](jpeg_compress_struct& info) { jpeg_set_quality(&info, quality, TRUE); },
      [&](int y, unsigned char* row) {
        const auto* source = image.rgb.data() + static_cast<std::size_t>(y) * image.width * 3;
        for (int x = 0; x < image.width; ++x) {
          if (grey)
            row[x] = source[x * 3];
          else
            for (int c = 0; c < 3; ++c) row[x * 3 + c] = source[x * 3 + c];
        }
      });
}

// A CMYK JPEG of `image` as Photoshop writes one (an Adobe marker, inverted values: 255 is no
// ink), r = c, g = m, b = y with no black; `ycck`: stored as YCCK, as Photoshop also does.
inline std::string cmyk_jpeg_of(const util::RgbImage& image, bool ycck = false) {
  return encode_jpeg(
      image.width, image.height, 4, JCS_CMYK,
      [&](jpeg_compress_struct& info) {
        jpeg_set_colorspace(&info, ycck ? JCS_YCCK : JCS_CMYK);  // writes the Adobe marker
        jpeg_set_quality(&info, 100, TRUE);
      },
      [&](int y, unsigned char* row) {
        const auto* source = image.rgb.data() + static_cast<std::size_t>(y) * image.width * 3;
        for (int x = 0; x < image.width; ++x) {
          for (int c = 0; c < 3; ++c) row[x * 4 + c] = source[x * 3 + c];
          row[x * 4 + 3] = 255;
        }
      });
}

// A grey progressive JPEG of `image` in 128 scans (each coefficient alone, in two passes of
// successive approximation), as a decoding-cost attack sends one: valid, but decoded once
// per scan.
inline std::string many_scan_jpeg_of(const util::RgbImage& image) {
  std::vector<jpeg_scan_info> scans;
  for (int k = 0; k < 64; ++k) scans.push_back({1, {0, 0, 0, 0}, k, k, 0, 1});  // the coefficient's high bits
  for (int k = 0; k < 64; ++k) scans.push_back({1, {0, 0, 0, 0}, k, k, 1, 0});  // its last bit
  return encode_jpeg(
      image.width, image.height, 1, JCS_GRAYSCALE,
      [&](jpeg_compress_struct& info) {
        info.scan_info = scans.data();
        info.num_scans = static_cast<int>(scans.size());
      },
      [&](int y, unsigned char* row) {
        const auto* source = image.rgb.data() + static_cast<std::size_t>(y) * image.width * 3;
        for (int x = 0; x < image.width; ++x) row[x] = source[x * 3];
      });
}

// `jpeg` with its frame header (SOF0) claiming width x height: a small file that says it is a
// huge image, as an attacker would send it. Its data ends long before such an image would.
inline std::string claiming_size(std::string jpeg, int width, int height) {
  const auto sof = jpeg.find("\xFF\xC0");
  if (sof == std::string::npos || sof + 9 > jpeg.size()) throw std::invalid_argument("no baseline frame header");
  // FF C0, length (2 bytes), precision (1), height (2, big-endian), width (2)
  jpeg[sof + 5] = static_cast<char>(height >> 8), jpeg[sof + 6] = static_cast<char>(height & 0xFF);
  jpeg[sof + 7] = static_cast<char>(width >> 8), jpeg[sof + 8] = static_cast<char>(width & 0xFF);
  return jpeg;
}

// DIR/CLASS/NAME files: `files` maps "CLASS/NAME" (or "train/CLASS/NAME") to the bytes.
inline void write_image_files(const std::filesystem::path& dir, const std::map<std::string, std::string>& files) {
  for (const auto& [name, bytes] : files) {
    std::filesystem::create_directories((dir / name).parent_path());
    write_bytes(dir / name, bytes);
  }
}

// Two classes that a tiny model tells apart: "red" and "blue" images of several sizes,
// `per_class` of each, half PNG and half JPEG.
inline std::filesystem::path red_and_blue_folder(const std::string& name, int per_class) {
  const auto dir = fresh_temp_dir(name);
  std::map<std::string, std::string> files;
  for (int i = 0; i < per_class; ++i) {
    const int w = 20 + 7 * (i % 5), h = 24 + 5 * (i % 3);
    const auto shade = static_cast<std::uint8_t>(180 + 5 * (i % 10));
    const auto red = solid_image(w, h, shade, 30, 40), blue = solid_image(h, w, 30, 40, shade);
    const auto index = std::to_string(100 + i);
    files["red/" + index + (i % 2 == 0 ? ".png" : ".jpg")] = i % 2 == 0 ? png_of(red) : jpeg_of(red);
    files["blue/" + index + (i % 2 == 0 ? ".jpg" : ".PNG")] = i % 2 == 0 ? jpeg_of(blue) : png_of(blue);
  }
  write_image_files(dir, files);
  return dir;
}

}  // namespace dls::test

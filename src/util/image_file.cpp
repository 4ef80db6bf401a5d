#include "dls/util/image_file.h"

#include <jpeglib.h>

#include <algorithm>
#include <cmath>
#include <csetjmp>
#include <memory>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <vector>

namespace dls::util {

namespace {

bool is_jpeg(const std::string& bytes) {
  return bytes.size() >= 3 && static_cast<unsigned char>(bytes[0]) == 0xFF &&
         static_cast<unsigned char>(bytes[1]) == 0xD8 && static_cast<unsigned char>(bytes[2]) == 0xFF;
}

// libjpeg reports errors through error_exit, which must not return: it jumps back to
// decode_jpeg with the message kept. Warnings (a truncated file's "Premature end of JPEG
// file") are errors here too, so that a damaged image is never trained on half grey.
struct JpegErrors {
  jpeg_error_mgr manager;
  std::jmp_buf jump;
  char message[JMSG_LENGTH_MAX];
  bool refused = false;  // a valid image this program will not decode (not damaged)
};

void jpeg_error_exit(j_common_ptr info) {
  auto* errors = reinterpret_cast<JpegErrors*>(info->err);
  (*info->err->format_message)(info, errors->message);
  std::longjmp(errors->jump, 1);
}

void jpeg_warning(j_common_ptr info, int level) {
  if (level < 0) jpeg_error_exit(info);  // level -1: a warning about damaged data
}

// A progressive JPEG is decoded once per scan: a 280 KB file of 2,079 scans took 6 s to
// decode at 4096x4096 pixels. Encoders write about 10 (jpegtran, mozjpeg); libjpeg-turbo's
// own tools offer the same kind of limit (djpeg -maxscan).
constexpr int kMaxJpegScans = 100;

void jpeg_scan_limit(j_common_ptr info) {
  const auto* decompress = reinterpret_cast<j_decompress_ptr>(info);
  if (decompress->input_scan_number <= kMaxJpegScans) return;
  auto* errors = reinterpret_cast<JpegErrors*>(info->err);
  std::snprintf(errors->message, sizeof errors->message,
                "a JPEG image of more than %d scans, refused: a progressive JPEG has about 10", kMaxJpegScans);
  errors->refused = true;
  std::longjmp(errors->jump, 1);
}

// A CMYK pixel as RGB. libjpeg writes Adobe's JPEGs (the usual CMYK files, Photoshop's)
// with inverted values, where 255 is no ink: r = c * k / 255; others with 0 as no ink.
void cmyk_to_rgb(const unsigned char* cmyk, unsigned char* rgb, bool inverted) {
  const int k = inverted ? cmyk[3] : 255 - cmyk[3];
  for (int i = 0; i < 3; ++i) {
    const int ink = inverted ? cmyk[i] : 255 - cmyk[i];
    rgb[i] = static_cast<unsigned char>((ink * k + 127) / 255);
  }
}

// Kept outside decode_jpeg's frame so that longjmp leaves no C++ object half-destroyed.
struct JpegDecode {
  jpeg_decompress_struct info{};
  JpegErrors errors{};
  jpeg_progress_mgr progress{};
  std::vector<unsigned char> cmyk_row;  // one row of a CMYK or YCCK image as libjpeg writes it
  ImageDecoding decoding;
  bool header_only = false;
  bool too_large = false;
  RgbImage image;  // header_only: its width and height only
};

// The scale k/8 (k = 1..8) whose output keeps both sides >= min_side; libjpeg rounds up.
unsigned int scale_eighths(unsigned int width, unsigned int height, int min_side) {
  if (min_side <= 0) return 8;
  const auto side = static_cast<unsigned long long>(min_side);
  for (unsigned int k = 1; k < 8; ++k) {
    if ((width * static_cast<unsigned long long>(k) + 7) / 8 >= side &&
        (height * static_cast<unsigned long long>(k) + 7) / 8 >= side)
      return k;
  }
  return 8;
}

// C-style on purpose: no object with a destructor lives in a frame longjmp crosses.
bool run_jpeg_decode(JpegDecode& d, const std::string& bytes) {
  d.info.err = jpeg_std_error(&d.errors.manager);
  d.errors.manager.error_exit = jpeg_error_exit;
  d.errors.manager.emit_message = jpeg_warning;
  if (setjmp(d.errors.jump) != 0) {
    jpeg_destroy_decompress(&d.info);
    return false;
  }
  jpeg_create_decompress(&d.info);
  jpeg_mem_src(&d.info, reinterpret_cast<const unsigned char*>(bytes.data()), static_cast<unsigned long>(bytes.size()));
  jpeg_read_header(&d.info, TRUE);
  d.image.width = static_cast<int>(d.info.image_width);
  d.image.height = static_cast<int>(d.info.image_height);
  if (d.header_only) {
    jpeg_destroy_decompress(&d.info);
    return true;
  }
  if (static_cast<long long>(d.info.image_width) * d.info.image_height > d.decoding.max_pixels) {
    std::snprintf(d.errors.message, sizeof d.errors.message, "a JPEG image of %ux%u pixels, larger than %lld",
                  d.info.image_width, d.info.image_height, d.decoding.max_pixels);
    d.too_large = true;
    jpeg_destroy_decompress(&d.info);
    return false;
  }
  // Grey and YCbCr converted to RGB by libjpeg; CMYK and YCCK (which libjpeg turns into
  // CMYK) converted here, as libjpeg has no conversion from them to RGB.
  const bool cmyk = d.info.jpeg_color_space == JCS_CMYK || d.info.jpeg_color_space == JCS_YCCK;
  d.info.out_color_space = cmyk ? JCS_CMYK : JCS_RGB;
  d.info.scale_num = scale_eighths(d.info.image_width, d.info.image_height, d.decoding.min_side);
  d.info.scale_denom = 8;
  d.progress.progress_monitor = jpeg_scan_limit;
  d.info.progress = &d.progress;
  jpeg_start_decompress(&d.info);
  d.image.width = static_cast<int>(d.info.output_width);
  d.image.height = static_cast<int>(d.info.output_height);
  d.image.rgb.resize(static_cast<std::size_t>(d.image.width) * static_cast<std::size_t>(d.image.height) * 3);
  if (cmyk) d.cmyk_row.resize(static_cast<std::size_t>(d.image.width) * 4);
  while (d.info.output_scanline < d.info.output_height) {
    unsigned char* row = d.image.rgb.data() + static_cast<std::size_t>(d.info.output_scanline) * d.image.width * 3;
    if (!cmyk) {
      jpeg_read_scanlines(&d.info, &row, 1);
      continue;
    }
    unsigned char* source = d.cmyk_row.data();
    jpeg_read_scanlines(&d.info, &source, 1);
    for (int x = 0; x < d.image.width; ++x) cmyk_to_rgb(source + 4 * x, row + 3 * x, d.info.saw_Adobe_marker);
  }
  jpeg_finish_decompress(&d.info);
  jpeg_destroy_decompress(&d.info);
  return true;
}

RgbImage decode_jpeg(const std::string& bytes, const ImageDecoding& decoding, bool header_only) {
  auto decode = std::make_unique<JpegDecode>();
  decode->decoding = decoding;
  decode->header_only = header_only;
  if (!run_jpeg_decode(*decode, bytes)) {
    const std::string message = decode->errors.message;
    if (decode->too_large) throw ImageTooLarge(message);
    if (decode->errors.refused) throw std::invalid_argument(message);
    throw std::invalid_argument("a damaged JPEG image (" + message + ")");
  }
  return std::move(decode->image);
}

// The source positions and weights of one output coordinate, for every output coordinate:
// a triangle filter of half-width max(1, scale) around the output pixel's centre.
struct Taps {
  std::vector<int> first, count;
  std::vector<double> weights;  // count[i] weights from offset[i]
  std::vector<std::size_t> offset;
};

Taps filter_taps(int in_size, int out_size) {
  const double scale = static_cast<double>(in_size) / out_size;
  const double support = std::max(1.0, scale);
  Taps taps;
  for (int o = 0; o < out_size; ++o) {
    const double centre = (o + 0.5) * scale;
    const int lo = std::max(0, static_cast<int>(std::floor(centre - support)));
    const int hi = std::min(in_size, static_cast<int>(std::ceil(centre + support)));
    taps.first.push_back(lo);
    taps.offset.push_back(taps.weights.size());
    double total = 0;
    for (int i = lo; i < hi; ++i) {
      const double w = std::max(0.0, 1.0 - std::abs((i + 0.5 - centre) / support));
      taps.weights.push_back(w);
      total += w;
    }
    taps.count.push_back(hi - lo);
    for (int i = 0; i < hi - lo; ++i) taps.weights[taps.offset.back() + i] /= total;
  }
  return taps;
}

}  // namespace

std::string read_image_file(const std::string& path) {
  std::error_code ignored;
  if (std::filesystem::is_directory(path, ignored)) throw std::runtime_error(path + ": is a directory, not a file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path + ": cannot open (" + std::strerror(errno) + ")");
  std::string bytes;
  std::vector<char> chunk(1 << 20);
  while (in) {
    in.read(chunk.data(), static_cast<std::streamsize>(chunk.size()));
    bytes.append(chunk.data(), static_cast<std::size_t>(in.gcount()));
    const bool png = bytes.size() >= 8 && bytes.compare(0, 8, "\x89PNG\r\n\x1a\n") == 0;
    if (bytes.size() >= 8 && !png && !is_jpeg(bytes)) throw std::runtime_error(path + ": not a PNG or JPEG image");
    if (bytes.size() > kMaxImageFileBytes)
      throw std::runtime_error(path + ": more than " + std::to_string(kMaxImageFileBytes >> 20) +
                               " MiB, larger than any image this program decodes");
  }
  if (in.bad()) throw std::runtime_error(path + ": read error");
  if (bytes.size() < 8) throw std::runtime_error(path + ": not a PNG or JPEG image");
  return bytes;
}

PngSize read_image_size(const std::string& bytes) {
  if (is_jpeg(bytes)) {
    const auto header = decode_jpeg(bytes, {}, true);
    return {header.width, header.height};
  }
  try {
    return read_png_size(bytes);
  } catch (const std::invalid_argument&) {
    throw std::invalid_argument("not a PNG or JPEG image");
  }
}

void check_image_size(const std::string& bytes, long long max_pixels) {
  const auto size = read_image_size(bytes);
  if (static_cast<long long>(size.width) * size.height > max_pixels) {
    throw ImageTooLarge(std::string(is_jpeg(bytes) ? "a JPEG" : "a PNG") + " image of " + std::to_string(size.width) +
                        "x" + std::to_string(size.height) + " pixels, larger than " + std::to_string(max_pixels));
  }
}

RgbImage decode_image(const std::string& bytes, const ImageDecoding& decoding) {
  if (is_jpeg(bytes)) return decode_jpeg(bytes, decoding, false);  // checks its size as it reads its header
  check_image_size(bytes, decoding.max_pixels);
  return decode_png(bytes);
}

RgbImage resize_image(const RgbImage& image, int width, int height) {
  if (image.width == width && image.height == height) return image;
  // Separable: rows first into [H_in, W_out, 3] doubles, then columns.
  const auto across = filter_taps(image.width, width), down = filter_taps(image.height, height);
  std::vector<double> rows(static_cast<std::size_t>(image.height) * width * 3);
  for (int y = 0; y < image.height; ++y) {
    for (int x = 0; x < width; ++x) {
      for (int c = 0; c < 3; ++c) {
        double sum = 0;
        for (int k = 0; k < across.count[x]; ++k) {
          const auto source = (static_cast<std::size_t>(y) * image.width + across.first[x] + k) * 3 + c;
          sum += across.weights[across.offset[x] + k] * image.rgb[source];
        }
        rows[(static_cast<std::size_t>(y) * width + x) * 3 + c] = sum;
      }
    }
  }
  RgbImage out;
  out.width = width;
  out.height = height;
  out.rgb.resize(static_cast<std::size_t>(width) * height * 3);
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      for (int c = 0; c < 3; ++c) {
        double sum = 0;
        for (int k = 0; k < down.count[y]; ++k) {
          sum += down.weights[down.offset[y] + k] *
                 rows[((down.first[y] + k) * static_cast<std::size_t>(width) + x) * 3 + c];
        }
        out.rgb[(static_cast<std::size_t>(y) * width + x) * 3 + c] =
            static_cast<std::uint8_t>(std::clamp(std::lround(sum), 0L, 255L));
      }
    }
  }
  return out;
}

std::vector<std::uint8_t> planar_pixels(const RgbImage& image, int channels, int size) {
  const auto resized = resize_image(image, size, size);
  const std::size_t plane = static_cast<std::size_t>(size) * static_cast<std::size_t>(size);
  std::vector<std::uint8_t> out(plane * static_cast<std::size_t>(channels));
  for (std::size_t p = 0; p < plane; ++p) {
    const auto* rgb = resized.rgb.data() + p * 3;
    if (channels == 1) {
      out[p] = static_cast<std::uint8_t>(std::lround(0.299 * rgb[0] + 0.587 * rgb[1] + 0.114 * rgb[2]));
    } else {
      for (std::size_t c = 0; c < 3; ++c) out[c * plane + p] = rgb[c];
    }
  }
  return out;
}

}  // namespace dls::util

// Image files a user brings (vit_train --image-folder, checkpoint_eval --classify): PNG
// (png_image.h, through cairo) or JPEG (libjpeg-turbo), told apart by their first bytes, and
// resized to what a model takes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "dls/util/png_image.h"

namespace dls::util {

// Larger images are refused before they are decoded: a small file may claim a huge size.
inline constexpr long long kMaxImagePixels = 64LL * 1024 * 1024;

// How much of an image is decoded.
struct ImageDecoding {
  // Width x height as the file's header claims it; a larger image is refused (ImageTooLarge)
  // before anything is allocated for it.
  long long max_pixels = kMaxImagePixels;
  // > 0: a JPEG is decoded at the smallest of libjpeg's scales 1/8, 2/8, ..., 8/8 that keeps
  // both sides at least this long (its inverse DCT does the first shrink, as PIL's draft mode
  // does; resize_image the rest), so a photo for a 32-pixel model costs 1/64 of its pixels.
  // 0: full size. PNGs are always decoded at full size.
  int min_side = 0;
};

// An image whose header claims more than ImageDecoding::max_pixels.
struct ImageTooLarge : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

// The bytes of the image file `path` (a file, or a pipe such as /dev/stdin): refused in one
// line naming it once its first bytes are not a PNG's or JPEG's, or past kMaxImageFileBytes,
// rather than read whole first (a stream of zeros grew to gigabytes before).
inline constexpr std::size_t kMaxImageFileBytes = 512ULL << 20;
std::string read_image_file(const std::string& path);

// Width and height as a PNG's or JPEG's header gives them, nothing decoded. Throws
// std::invalid_argument as decode_image does.
PngSize read_image_size(const std::string& bytes);

// Throws ImageTooLarge when the header claims more than max_pixels, std::invalid_argument
// when the bytes are not a PNG or JPEG (what decode_image would say first); decodes nothing.
void check_image_size(const std::string& bytes, long long max_pixels);

// The pixels of a PNG or JPEG file's bytes, RGB interleaved (grey JPEGs come back with
// r = g = b). Throws std::invalid_argument with one line ("not a PNG or JPEG image", "a
// damaged JPEG image (Premature end of JPEG file)"), ImageTooLarge ("a JPEG image of
// 8000x8000 pixels, larger than ...").
RgbImage decode_image(const std::string& bytes, const ImageDecoding& decoding = {});

// `image` resized to width x height: bilinear with antialiasing (a triangle filter as wide as
// the scale when shrinking, as PIL and torchvision do), rounded to bytes. The same image
// when the size is already that.
RgbImage resize_image(const RgbImage& image, int width, int height);

// What a model takes: `image` resized to size x size, as planar bytes [channels, size, size]
// (data::ImageSet's layout); one channel: the luminance 0.299 R + 0.587 G + 0.114 B (a grey
// image's own value), three: R, G, B.
std::vector<std::uint8_t> planar_pixels(const RgbImage& image, int channels, int size);

}  // namespace dls::util

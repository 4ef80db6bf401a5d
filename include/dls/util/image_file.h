// Image files a user brings (vit_train --image-folder, checkpoint_eval --classify): PNG
// (png_image.h, through cairo) or JPEG (libjpeg-turbo), told apart by their first bytes, and
// resized to what a model takes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "dls/util/png_image.h"

namespace dls::util {

// Larger images are refused before they are decoded: a small file may claim a huge size.
inline constexpr long long kMaxImagePixels = 64LL * 1024 * 1024;

// The pixels of a PNG or JPEG file's bytes, RGB interleaved (grey JPEGs come back with
// r = g = b). Throws std::invalid_argument with one line ("not a PNG or JPEG image", "a
// damaged JPEG image (Premature end of JPEG file)", "... larger than ... pixels").
RgbImage decode_image(const std::string& bytes);

// `image` resized to width x height: bilinear with antialiasing (a triangle filter as wide as
// the scale when shrinking, as PIL and torchvision do), rounded to bytes. The same image
// when the size is already that.
RgbImage resize_image(const RgbImage& image, int width, int height);

// What a model takes: `image` resized to size x size, as planar bytes [channels, size, size]
// (data::ImageSet's layout); one channel: the luminance 0.299 R + 0.587 G + 0.114 B (a grey
// image's own value), three: R, G, B.
std::vector<std::uint8_t> planar_pixels(const RgbImage& image, int channels, int size);

}  // namespace dls::util

// Per-image preparation for the network: random crop with zero padding, horizontal flip
// and random erasing (training-time augmentation), and normalisation of 0–255 bytes to floats. Plain
// loops over bytes through a 256-entry table per channel: no tensors, no allocation.
#pragma once

#include <cstdint>
#include <vector>

#include "dls/data/image_dataset.h"
#include "dls/util/random.h"

namespace dls::data {

// y = (pixel / 255 − mean[c]) / std[c], per channel c.
struct Normalization {
  std::vector<float> mean;  // one per channel, in 0–1 units
  std::vector<float> std;   // one per channel, > 0

  // DLStudio's ToTensor + Normalize((0.5, …), (0.5, …)): maps 0–255 onto [−1, 1].
  static Normalization dlstudio(int channels);
};

// Per-channel mean and (population) standard deviation over every pixel of the set, in
// 0–1 units; Fashion-MNIST's training set gives mean 0.2860, std 0.3530. Computed exactly
// from a histogram of byte values.
Normalization compute_channel_stats(const ImageSet& set);

struct AugmentOptions {
  int pad = 0;         // random crop: zero-pad by `pad`, cut a window of the original size; 0 = off
  bool flip = false;   // horizontal flip with probability 1/2 (turn off for digits, text)
  double erase = 0.0;  // random erasing: probability of blanking one rectangle; 0 = off

  bool enabled() const { return pad > 0 || flip || erase > 0.0; }
};

// The usual choice for an image size: pad 4 for 32×32 and larger, 2 below; flip on.
AugmentOptions default_augmentation(const ImageSet& set);

// Rectangle of output pixels [y, y + height) × [x, x + width), every channel; empty when
// height or width is 0.
struct EraseBox {
  int y = 0;
  int x = 0;
  int height = 0;
  int width = 0;

  bool empty() const { return height <= 0 || width <= 0; }
};

// One image's draw. Output pixel (c, y, x) = input (c, y + dy, x' + dx) with
// x' = flip ? W − 1 − x : x, and a zero byte where that falls outside the image — the same
// as torchvision's RandomCrop(size, padding=pad) followed by RandomHorizontalFlip, with
// dy, dx = (crop corner − pad). The zero byte is normalised like any pixel. Then the
// pixels in `erase` become 0.0 after normalisation (the normalisation's mean), as
// torchvision's RandomErasing(value=0) does after Normalize.
struct AugmentDraw {
  int dy = 0;
  int dx = 0;
  bool flip = false;
  EraseBox erase;
};

// dy, then dx, uniform in [−pad, pad]; then flip with probability 1/2; then the erase box.
// Draws nothing for a disabled part, so turning one part off leaves the earlier parts'
// draws unchanged.
AugmentDraw draw_augmentation(const AugmentOptions& options, int height, int width, util::Rng& rng);

// Random erasing (Zhong et al. 2017) as torchvision's RandomErasing draws it: with
// probability `probability`, up to 10 tries of an area fraction uniform in [0.02, 0.33]
// and an aspect ratio log-uniform in [0.3, 3.3]; the first box that fits the image is
// placed uniformly. Empty box otherwise.
EraseBox draw_erase_box(double probability, int height, int width, util::Rng& rng);

// Bytes → normalised floats for images of one shape.
class ImageTransform {
 public:
  // Throws std::invalid_argument when normalization does not have `channels` entries or a
  // standard deviation is not positive.
  ImageTransform(int channels, int height, int width, const Normalization& normalization);

  // src: C×H×W bytes, dst: C×H×W floats (channel-planar, like [C, H, W]).
  void apply(const std::uint8_t* src, float* dst, const AugmentDraw& draw = {}) const;

 private:
  // Sets the box's pixels of one H×W plane to 0.0 (clipped to the plane).
  void erase(float* plane, const EraseBox& box) const;

  int channels_;
  int height_;
  int width_;
  std::vector<float> table_;  // [C, 256]: normalised value of every byte in every channel
};

}  // namespace dls::data

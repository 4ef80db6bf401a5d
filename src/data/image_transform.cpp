#include "dls/data/image_transform.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>
#include <string>

namespace dls::data {

Normalization Normalization::dlstudio(int channels) {
  const auto n = static_cast<std::size_t>(std::max(channels, 0));
  return Normalization{std::vector<float>(n, 0.5F), std::vector<float>(n, 0.5F)};
}

Normalization compute_channel_stats(const ImageSet& set) {
  const auto channels = static_cast<std::size_t>(set.channels);
  const std::size_t plane = static_cast<std::size_t>(set.height) * static_cast<std::size_t>(set.width);
  // Byte histograms keep the sums exact; the mean and variance follow in double.
  std::vector<std::array<std::uint64_t, 256>> histogram(channels);
  for (auto& h : histogram) h.fill(0);
  for (std::size_t i = 0; i < set.size(); ++i) {
    const std::uint8_t* image = set.image(i);
    for (std::size_t c = 0; c < channels; ++c) {
      const std::uint8_t* p = image + c * plane;
      auto& h = histogram[c];
      for (std::size_t k = 0; k < plane; ++k) ++h[p[k]];
    }
  }
  Normalization stats;
  for (std::size_t c = 0; c < channels; ++c) {
    double count = 0.0, sum = 0.0, sum_sq = 0.0;
    for (int v = 0; v < 256; ++v) {
      const auto n = static_cast<double>(histogram[c][static_cast<std::size_t>(v)]);
      const double x = v / 255.0;
      count += n;
      sum += n * x;
      sum_sq += n * x * x;
    }
    const double mean = count > 0 ? sum / count : 0.0;
    const double var = count > 0 ? std::max(sum_sq / count - mean * mean, 0.0) : 0.0;
    stats.mean.push_back(static_cast<float>(mean));
    stats.std.push_back(static_cast<float>(std::sqrt(var)));
  }
  return stats;
}

AugmentOptions default_augmentation(const ImageSet& set) {
  AugmentOptions options;
  options.pad = std::min(set.height, set.width) >= 32 ? 4 : 2;
  options.flip = true;
  return options;
}

EraseBox draw_erase_box(double probability, int height, int width, util::Rng& rng) {
  EraseBox box;
  if (!(rng.uniform() < probability)) return box;
  const double area = static_cast<double>(height) * static_cast<double>(width);
  const double log_min_ratio = std::log(0.3);
  const double log_max_ratio = std::log(1.0 / 0.3);
  for (int attempt = 0; attempt < 10; ++attempt) {
    const double erase_area = area * (0.02 + (0.33 - 0.02) * rng.uniform());
    const double ratio = std::exp(log_min_ratio + (log_max_ratio - log_min_ratio) * rng.uniform());
    const auto h = static_cast<int>(std::lround(std::sqrt(erase_area * ratio)));
    const auto w = static_cast<int>(std::lround(std::sqrt(erase_area / ratio)));
    if (!(h < height && w < width)) continue;
    box.y = static_cast<int>(rng.below(static_cast<std::uint64_t>(height - h + 1)));
    box.x = static_cast<int>(rng.below(static_cast<std::uint64_t>(width - w + 1)));
    box.height = h;
    box.width = w;
    return box;
  }
  return box;
}

AugmentDraw draw_augmentation(const AugmentOptions& options, int height, int width, util::Rng& rng) {
  AugmentDraw draw;
  if (options.pad > 0) {
    const auto span = static_cast<std::uint64_t>(2 * options.pad + 1);
    draw.dy = static_cast<int>(rng.below(span)) - options.pad;
    draw.dx = static_cast<int>(rng.below(span)) - options.pad;
  }
  if (options.flip) draw.flip = (rng.next_u64() >> 63) != 0;
  if (options.erase > 0.0) draw.erase = draw_erase_box(options.erase, height, width, rng);
  return draw;
}

ImageTransform::ImageTransform(int channels, int height, int width, const Normalization& normalization)
    : channels_(channels), height_(height), width_(width) {
  const auto n = static_cast<std::size_t>(channels);
  if (normalization.mean.size() != n || normalization.std.size() != n) {
    throw std::invalid_argument("normalization has " + std::to_string(normalization.mean.size()) + " means and " +
                                std::to_string(normalization.std.size()) + " standard deviations for " +
                                std::to_string(channels) + " channels");
  }
  table_.resize(n * 256);
  for (std::size_t c = 0; c < n; ++c) {
    const float std = normalization.std[c];
    if (!(std > 0.0F)) {
      throw std::invalid_argument("normalization: standard deviation of channel " + std::to_string(c) + " is " +
                                  std::to_string(std) + ", not positive");
    }
    for (int v = 0; v < 256; ++v) {
      table_[c * 256 + static_cast<std::size_t>(v)] = (static_cast<float>(v) / 255.0F - normalization.mean[c]) / std;
    }
  }
}

void ImageTransform::apply(const std::uint8_t* src, float* dst, const AugmentDraw& draw) const {
  const int h = height_;
  const int w = width_;
  const int dx = draw.dx;
  // Output columns whose source column lies inside the image: [x_begin, x_end).
  // Without flip the source is x + dx; with flip it is w − 1 − x + dx.
  const int x_begin = draw.flip ? std::max(0, dx) : std::max(0, -dx);
  const int x_end = draw.flip ? std::min(w, w + dx) : std::min(w, w - dx);
  for (int c = 0; c < channels_; ++c) {
    const float* table = table_.data() + static_cast<std::size_t>(c) * 256;
    const float zero = table[0];
    const std::uint8_t* plane = src + static_cast<std::size_t>(c) * h * w;
    for (int y = 0; y < h; ++y, dst += w) {
      const int sy = y + draw.dy;
      if (sy < 0 || sy >= h || x_begin >= x_end) {
        std::fill(dst, dst + w, zero);
        continue;
      }
      const std::uint8_t* row = plane + static_cast<std::size_t>(sy) * w;
      std::fill(dst, dst + x_begin, zero);
      // Indices, not shifted pointers: row + dx may point outside the array.
      if (draw.flip) {
        const int from = w - 1 + dx;  // source column of output column 0
        for (int x = x_begin; x < x_end; ++x) dst[x] = table[row[from - x]];
      } else {
        for (int x = x_begin; x < x_end; ++x) dst[x] = table[row[x + dx]];
      }
      std::fill(dst + x_end, dst + w, zero);
    }
    erase(dst - static_cast<std::size_t>(h) * w, draw.erase);
  }
}

void ImageTransform::erase(float* plane, const EraseBox& box) const {
  if (box.empty()) return;
  const int y_end = std::min(box.y + box.height, height_);
  const int x_begin = std::max(box.x, 0);
  const int x_end = std::min(box.x + box.width, width_);
  if (x_begin >= x_end) return;
  for (int y = std::max(box.y, 0); y < y_end; ++y) {
    float* row = plane + static_cast<std::size_t>(y) * width_;
    std::fill(row + x_begin, row + x_end, 0.0F);
  }
}

}  // namespace dls::data

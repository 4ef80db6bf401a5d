// IDX files (Fashion-MNIST's format) made in tests: raw image and label files, and a small
// learnable fake Fashion-MNIST folder for end-to-end training and evaluation tests.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "util/temp_files.h"

namespace dls::test {

inline std::string be32(std::uint32_t v) {
  return {static_cast<char>(v >> 24), static_cast<char>(v >> 16), static_cast<char>(v >> 8), static_cast<char>(v)};
}

// IDX image file of n h×w images; pixel (i, y, x) = (i * 31 + y * 7 + x) mod 256.
inline std::string idx_images(std::uint32_t n, std::uint32_t h, std::uint32_t w, std::uint32_t magic = 0x00000803) {
  std::string bytes = be32(magic) + be32(n) + be32(h) + be32(w);
  for (std::uint32_t i = 0; i < n; ++i)
    for (std::uint32_t y = 0; y < h; ++y)
      for (std::uint32_t x = 0; x < w; ++x) bytes += static_cast<char>((i * 31 + y * 7 + x) & 255);
  return bytes;
}

inline std::string idx_labels(const std::vector<int>& labels) {
  std::string bytes = be32(0x00000801) + be32(static_cast<std::uint32_t>(labels.size()));
  for (const int label : labels) bytes += static_cast<char>(label);
  return bytes;
}

// Writes train-* (n_train images) and t10k-* (n_test) 28×28 files into `dir`: image i has
// label i mod 10 and a bright 7×7 block in the label's cell of a 4×4 grid over faint
// patterned background, so that a small ViT can learn it in a few steps.
inline void write_fake_fashion_mnist(const std::filesystem::path& dir, std::uint32_t n_train, std::uint32_t n_test) {
  auto write = [&](const std::string& prefix, std::uint32_t n) {
    std::string images = be32(0x00000803) + be32(n) + be32(28) + be32(28);
    std::vector<int> labels;
    for (std::uint32_t i = 0; i < n; ++i) {
      const int label = static_cast<int>(i % 10);
      labels.push_back(label);
      const int cy = label / 4 * 7, cx = label % 4 * 7;
      for (int y = 0; y < 28; ++y)
        for (int x = 0; x < 28; ++x) {
          const bool block = y >= cy && y < cy + 7 && x >= cx && x < cx + 7;
          images += static_cast<char>(block ? 200 + (i + y) % 50 : (i * 13 + y * 5 + x * 3) % 60);
        }
    }
    write_bytes(dir / (prefix + "-images-idx3-ubyte"), images);
    write_bytes(dir / (prefix + "-labels-idx1-ubyte"), idx_labels(labels));
  };
  write("train", n_train);
  write("t10k", n_test);
}

}  // namespace dls::test

#include "dls/data/image_transform.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <stdexcept>
#include <vector>

namespace dls::data {
namespace {

// C×H×W image with distinct bytes: (c, y, x) -> 1 + c * 60 + y * 7 + x (never 0, so that
// padding is recognisable).
ImageSet distinct_image(int channels, int height, int width) {
  ImageSet set;
  set.channels = channels;
  set.height = height;
  set.width = width;
  set.labels = {0};
  for (int c = 0; c < channels; ++c)
    for (int y = 0; y < height; ++y)
      for (int x = 0; x < width; ++x) set.pixels.push_back(static_cast<std::uint8_t>(1 + c * 60 + y * 7 + x));
  return set;
}

// Normalisation that leaves byte values readable: mean 0, std 1/255 -> y = byte.
Normalization identity(int channels) {
  return Normalization{std::vector<float>(static_cast<std::size_t>(channels), 0.0F),
                       std::vector<float>(static_cast<std::size_t>(channels), 1.0F / 255.0F)};
}

std::vector<float> apply(const ImageSet& set, const Normalization& norm, const AugmentDraw& draw) {
  std::vector<float> out(set.image_bytes(), -100.0F);
  ImageTransform(set.channels, set.height, set.width, norm).apply(set.image(0), out.data(), draw);
  return out;
}

TEST(ImageTransform, DlstudioNormalisationMapsBytesOntoMinusOneToOne) {
  ImageSet set;
  set.channels = 1;
  set.height = 1;
  set.width = 4;
  set.labels = {0};
  set.pixels = {0, 51, 255, 128};
  const std::vector<float> out = apply(set, Normalization::dlstudio(1), {});
  EXPECT_FLOAT_EQ(out[0], -1.0F);
  EXPECT_FLOAT_EQ(out[1], -0.6F);  // (0.2 − 0.5) / 0.5
  EXPECT_FLOAT_EQ(out[2], 1.0F);
  EXPECT_FLOAT_EQ(out[3], (128.0F / 255.0F - 0.5F) / 0.5F);
}

TEST(ImageTransform, PerChannelNormalisation) {
  const ImageSet set = distinct_image(3, 2, 2);
  const Normalization norm{{0.1F, 0.2F, 0.3F}, {0.5F, 0.25F, 2.0F}};
  const std::vector<float> out = apply(set, norm, {});
  for (int c = 0; c < 3; ++c) {
    const std::size_t at = static_cast<std::size_t>(c) * 4 + 3;  // (c, 1, 1)
    EXPECT_FLOAT_EQ(out[at], (set.pixels[at] / 255.0F - norm.mean[c]) / norm.std[c]);
  }
}

TEST(ImageTransform, RejectsBadNormalisation) {
  EXPECT_THROW(ImageTransform(3, 4, 4, Normalization::dlstudio(1)), std::invalid_argument);
  EXPECT_THROW(ImageTransform(1, 4, 4, Normalization{{0.5F}, {0.0F}}), std::invalid_argument);
}

TEST(ImageTransform, ChannelStatsOfAKnownSet) {
  ImageSet set;
  set.channels = 2;
  set.height = 1;
  set.width = 2;
  set.labels = {0, 0};
  // Channel 0: 0, 255, 0, 255 -> mean 0.5, std 0.5. Channel 1: 51 everywhere -> 0.2, 0.
  set.pixels = {0, 255, 51, 51, 255, 0, 51, 51};
  const Normalization stats = compute_channel_stats(set);
  ASSERT_EQ(stats.mean.size(), 2U);
  EXPECT_NEAR(stats.mean[0], 0.5, 1e-7);
  EXPECT_NEAR(stats.std[0], 0.5, 1e-7);
  EXPECT_NEAR(stats.mean[1], 0.2, 1e-7);
  EXPECT_NEAR(stats.std[1], 0.0, 1e-4);
}

TEST(ImageTransform, FashionMnistChannelStats) {
  if (!std::filesystem::exists(std::filesystem::path(kFashionMnistDir) / "train-images-idx3-ubyte.gz")) {
    GTEST_SKIP() << kFashionMnistDir << " is absent (Debian package dataset-fashion-mnist)";
  }
  const Normalization stats = compute_channel_stats(read_fashion_mnist());
  // The values commonly quoted for Fashion-MNIST's training set.
  EXPECT_NEAR(stats.mean[0], 0.2860, 5e-5);
  EXPECT_NEAR(stats.std[0], 0.3530, 5e-5);
}

TEST(ImageTransform, CropShiftsPixelsAndPadsWithZero) {
  const ImageSet set = distinct_image(2, 4, 5);
  // dy = 1, dx = −2: output (c, y, x) = input (c, y + 1, x − 2).
  const std::vector<float> out = apply(set, identity(2), AugmentDraw{1, -2, false, {}});
  const auto at = [](int c, int y, int x) { return static_cast<std::size_t>((c * 4 + y) * 5 + x); };
  EXPECT_FLOAT_EQ(out[at(1, 0, 2)], set.pixels[at(1, 1, 0)]);
  EXPECT_FLOAT_EQ(out[at(0, 2, 4)], set.pixels[at(0, 3, 2)]);
  EXPECT_FLOAT_EQ(out[at(0, 3, 3)], 0.0F);  // source row 4 is outside
  EXPECT_FLOAT_EQ(out[at(1, 1, 1)], 0.0F);  // source column −1 is outside
}

TEST(ImageTransform, FlipMirrorsColumns) {
  const ImageSet set = distinct_image(1, 3, 4);
  const std::vector<float> out = apply(set, identity(1), AugmentDraw{0, 0, true, {}});
  for (int y = 0; y < 3; ++y)
    for (int x = 0; x < 4; ++x)
      EXPECT_FLOAT_EQ(out[static_cast<std::size_t>(y * 4 + x)], set.pixels[static_cast<std::size_t>(y * 4 + 3 - x)]);
  // Flip after a shift: output (0, 0, 0) = input (0, 1, W − 1 + dx) with dy = 1, dx = −1.
  const std::vector<float> both = apply(set, identity(1), AugmentDraw{1, -1, true, {}});
  EXPECT_FLOAT_EQ(both[0], set.pixels[1 * 4 + 2]);
  EXPECT_FLOAT_EQ(both[3], 0.0F);  // source column −1
}

// The same operations written with LibTorch: pad with zero bytes, cut the window at
// (pad + dy, pad + dx), flip the last axis, then normalise. Returns [C, H, W].
torch::Tensor libtorch_crop_flip(const ImageSet& set, const Normalization& norm, int dy, int dx, bool flip) {
  const int pad = std::max(std::abs(dy), std::abs(dx));
  const torch::Tensor bytes = torch::tensor(std::vector<std::int64_t>(set.pixels.begin(), set.pixels.end()))
                                  .view({set.channels, set.height, set.width});
  const torch::Tensor mean = torch::tensor(norm.mean).view({set.channels, 1, 1});
  const torch::Tensor std = torch::tensor(norm.std).view({set.channels, 1, 1});
  torch::Tensor window = torch::constant_pad_nd(bytes, {pad, pad, pad, pad}, 0)
                             .narrow(1, pad + dy, set.height)
                             .narrow(2, pad + dx, set.width);
  if (flip) window = window.flip({2});
  return (window.to(torch::kFloat32) / 255.0 - mean) / std;
}

TEST(ImageTransform, MatchesPadCropFlipInLibTorch) {
  const ImageSet set = distinct_image(3, 6, 7);
  const Normalization norm{{0.4F, 0.5F, 0.6F}, {0.2F, 0.3F, 0.25F}};
  for (int dy = -3; dy <= 3; ++dy) {
    for (int dx = -3; dx <= 3; ++dx) {
      for (const bool flip : {false, true}) {
        const torch::Tensor expected = libtorch_crop_flip(set, norm, dy, dx, flip);
        const std::vector<float> out = apply(set, norm, AugmentDraw{dy, dx, flip, {}});
        const torch::Tensor got = torch::tensor(out).view({3, 6, 7});
        ASSERT_TRUE(torch::allclose(got, expected, 1e-5, 1e-6)) << dy << " " << dx << " " << flip;
      }
    }
  }
}

TEST(ImageTransform, DrawsCoverTheRangeAndFlipIndependently) {
  const AugmentOptions both{2, true};
  const AugmentOptions crop_only{2, false};
  std::set<int> shifts;
  int flips = 0;
  for (std::uint64_t seed = 0; seed < 2000; ++seed) {
    util::Rng rng(seed);
    const AugmentDraw draw = draw_augmentation(both, 28, 28, rng);
    ASSERT_GE(draw.dy, -2);
    ASSERT_LE(draw.dy, 2);
    ASSERT_GE(draw.dx, -2);
    ASSERT_LE(draw.dx, 2);
    shifts.insert(draw.dy * 10 + draw.dx);
    flips += draw.flip ? 1 : 0;
    util::Rng again(seed);
    const AugmentDraw no_flip = draw_augmentation(crop_only, 28, 28, again);
    EXPECT_EQ(no_flip.dy, draw.dy);
    EXPECT_EQ(no_flip.dx, draw.dx);
    EXPECT_FALSE(no_flip.flip);
  }
  EXPECT_EQ(shifts.size(), 25U);  // every (dy, dx) in [−2, 2]²
  EXPECT_NEAR(flips, 1000, 150);
  util::Rng rng(1);
  const AugmentDraw none = draw_augmentation(AugmentOptions{}, 28, 28, rng);
  EXPECT_EQ(none.dy, 0);
  EXPECT_EQ(none.dx, 0);
  EXPECT_FALSE(none.flip);
}

// Erasing after crop and flip, written with LibTorch as torchvision's RandomErasing(value=0)
// after Normalize: the box's pixels become 0 in every channel, the others are untouched.
TEST(ImageTransform, ErasesTheBoxAfterCropFlipAndNormalisation) {
  const ImageSet set = distinct_image(3, 6, 7);
  const Normalization norm{{0.4F, 0.5F, 0.6F}, {0.2F, 0.3F, 0.25F}};
  for (const EraseBox box : {EraseBox{0, 0, 6, 1}, EraseBox{2, 3, 3, 4}, EraseBox{5, 6, 1, 1}, EraseBox{1, 1, 0, 3}}) {
    torch::Tensor expected = libtorch_crop_flip(set, norm, 1, -1, true);
    if (!box.empty()) expected.narrow(1, box.y, box.height).narrow(2, box.x, box.width).zero_();
    const torch::Tensor got = torch::tensor(apply(set, norm, AugmentDraw{1, -1, true, box})).view({3, 6, 7});
    ASSERT_TRUE(torch::allclose(got, expected, 1e-5, 1e-6))
        << box.y << " " << box.x << " " << box.height << " " << box.width;
  }
}

// The boxes follow torchvision's RandomErasing: area 2–33 % of the image (up to rounding),
// aspect ratio in [0.3, 3.3] (up to rounding), always inside the image, drawn with the
// given probability; erasing draws last, so crops and flips are the same with it on.
TEST(ImageTransform, EraseBoxesFollowRandomErasing) {
  constexpr int kH = 28;
  constexpr int kW = 28;
  int erased = 0;
  std::set<int> corners;
  for (std::uint64_t seed = 0; seed < 4000; ++seed) {
    util::Rng rng(seed);
    const AugmentDraw draw = draw_augmentation(AugmentOptions{2, true, 0.5}, kH, kW, rng);
    util::Rng again(seed);
    const AugmentDraw without = draw_augmentation(AugmentOptions{2, true, 0.0}, kH, kW, again);
    EXPECT_EQ(draw.dy, without.dy);
    EXPECT_EQ(draw.dx, without.dx);
    EXPECT_EQ(draw.flip, without.flip);
    EXPECT_TRUE(without.erase.empty());
    const EraseBox& box = draw.erase;
    if (box.empty()) continue;
    ++erased;
    corners.insert(box.y * 100 + box.x);
    ASSERT_GE(box.y, 0);
    ASSERT_GE(box.x, 0);
    ASSERT_LT(box.height, kH);
    ASSERT_LT(box.width, kW);
    ASSERT_LE(box.y + box.height, kH);
    ASSERT_LE(box.x + box.width, kW);
    const double area = static_cast<double>(box.height) * box.width / (kH * kW);
    EXPECT_GE(area, 0.01);
    EXPECT_LE(area, 0.40);
    const double ratio = static_cast<double>(box.height) / box.width;
    EXPECT_GE(ratio, 0.3 * 0.6);
    EXPECT_LE(ratio, 3.3 / 0.6);
  }
  EXPECT_NEAR(erased, 2000, 150);
  EXPECT_GT(corners.size(), 300U);  // the corner spreads over the image
  util::Rng never(7);
  EXPECT_TRUE(draw_erase_box(0.0, kH, kW, never).empty());
  util::Rng always(7);
  EXPECT_FALSE(draw_erase_box(1.0, kH, kW, always).empty());
}

TEST(ImageTransform, DefaultAugmentationBySize) {
  EXPECT_EQ(default_augmentation(distinct_image(3, 32, 32)).pad, 4);
  EXPECT_EQ(default_augmentation(distinct_image(1, 28, 28)).pad, 2);
  EXPECT_TRUE(default_augmentation(distinct_image(1, 28, 28)).flip);
}

}  // namespace
}  // namespace dls::data

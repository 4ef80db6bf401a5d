#include "dls/layers/patch_embedding.h"

#include <gtest/gtest.h>

#include <torch/torch.h>

namespace dls {
namespace {

// Pixel (b, c, y, x) holds b * 10000 + c * 1000 + y * 10 + x, so every value names its place.
torch::Tensor labelled_images(std::int64_t B, std::int64_t C, std::int64_t H, std::int64_t W) {
  auto images = torch::empty({B, C, H, W});
  auto a = images.accessor<float, 4>();
  for (std::int64_t b = 0; b < B; ++b)
    for (std::int64_t c = 0; c < C; ++c)
      for (std::int64_t y = 0; y < H; ++y)
        for (std::int64_t x = 0; x < W; ++x) a[b][c][y][x] = static_cast<float>(b * 10000 + c * 1000 + y * 10 + x);
  return images;
}

TEST(ExtractPatches, PutsPixelYXCWhereDocumented) {
  const std::int64_t p = 4, B = 2, C = 3, H = 8, W = 12;
  const auto patches = extract_patches(labelled_images(B, C, H, W), p);
  ASSERT_EQ(patches.sizes(), (torch::IntArrayRef{B, (H / p) * (W / p), p * p * C}));
  auto a = patches.accessor<float, 3>();
  for (std::int64_t b = 0; b < B; ++b)
    for (std::int64_t c = 0; c < C; ++c)
      for (std::int64_t y = 0; y < H; ++y)
        for (std::int64_t x = 0; x < W; ++x) {
          const auto patch = (y / p) * (W / p) + x / p;        // row-major patch grid
          const auto element = ((y % p) * p + x % p) * C + c;  // channel-last in a patch
          ASSERT_EQ(a[b][patch][element], static_cast<float>(b * 10000 + c * 1000 + y * 10 + x))
              << "b=" << b << " c=" << c << " y=" << y << " x=" << x;
        }
}

// The gradient flowing back is the patches' gradient put back in place (the adjoint of a
// permutation is its inverse), for every patch size, p = 1 included. (That a convolution
// before the patches gets a gradient it reads right is the last test below.)
TEST(ExtractPatches, GradientIsTheInverseRearrangement) {
  for (const std::int64_t p : {1, 2, 4}) {
    const auto images = torch::randn({2, 3, 8, 12}, torch::requires_grad());
    const auto patches = extract_patches(images, p);
    const auto weights = labelled_images(2, 3, 8, 12);  // distinct value at every place
    // sum(patches * extract(weights)) = sum(images * weights): its gradient is `weights`.
    const auto grad = torch::autograd::grad({(patches * extract_patches(weights, p)).sum()}, {images})[0];
    EXPECT_TRUE(torch::equal(grad, weights)) << "p = " << p;
  }
}

TEST(ExtractPatches, RejectsSizesNotDivisibleByThePatch) {
  EXPECT_THROW(extract_patches(torch::zeros({1, 1, 28, 28}), 8), c10::Error);
  EXPECT_THROW(extract_patches(torch::zeros({1, 28, 28}), 7), c10::Error);
}

TEST(PatchEmbeddingGenerator, ShapesAndParameters) {
  PatchEmbeddingGenerator gen(PatchEmbeddingOptions().image_size(28).channels(1).patch_size(7).embedding_size(16));
  const auto out = gen(torch::randn({5, 1, 28, 28}));
  EXPECT_EQ(out.sizes(), (torch::IntArrayRef{5, 16, 16}));
  const auto params = gen->named_parameters();
  ASSERT_TRUE(params.contains("position_embedding"));
  EXPECT_EQ(params["position_embedding"].sizes(), (torch::IntArrayRef{1, 16, 16}));
  EXPECT_EQ(params["linear.weight"].sizes(), (torch::IntArrayRef{16, 49}));
  EXPECT_THROW(gen(torch::randn({5, 3, 28, 28})), c10::Error);
  EXPECT_THROW(PatchEmbeddingGenerator(PatchEmbeddingOptions().image_size(28).patch_size(8)), c10::Error);
}

// The Conv2d variant and the Linear variant compute the same function once the conv's
// weights are copied into the linear layer with the documented permutation.
TEST(PatchEmbeddingGenerator, ConvAndLinearVariantsAgree) {
  torch::manual_seed(3);
  const auto options = PatchEmbeddingOptions().image_size(32).channels(3).patch_size(8).embedding_size(24);
  PatchEmbeddingGenerator conv(PatchEmbeddingOptions(options).use_conv(true));
  PatchEmbeddingGenerator linear(options);
  ASSERT_TRUE(conv->conv && !conv->linear);
  {
    torch::NoGradGuard no_grad;
    linear->linear->weight.copy_(conv_weight_to_linear(conv->conv->weight));
    linear->linear->bias.copy_(conv->conv->bias);
    linear->position_embedding.copy_(conv->position_embedding);
  }
  const auto images = torch::randn({4, 3, 32, 32});
  EXPECT_TRUE(torch::allclose(conv(images), linear(images), 1e-5, 1e-5));
  // Without the permutation (DLStudio-style channel-first flattening) they differ.
  {
    torch::NoGradGuard no_grad;
    linear->linear->weight.copy_(conv->conv->weight.reshape({24, -1}));
  }
  EXPECT_FALSE(torch::allclose(conv(images), linear(images), 1e-3, 1e-3));
}

// A convolution before 1x1 patches gets the same gradient through either variant. As a
// chain of views, the Linear variant's backward handed the convolution a channels-last-strided
// gradient, and LibTorch 1.13's oneDNN convolution backward returned values of ~1e35 for it.
TEST(PatchEmbeddingGenerator, ConvolutionBeforeOnePixelPatchesGetsTheRightGradient) {
  torch::manual_seed(4);
  const auto options = PatchEmbeddingOptions().image_size(4).channels(16).patch_size(1).embedding_size(8);
  PatchEmbeddingGenerator conv_variant(PatchEmbeddingOptions(options).use_conv(true));
  PatchEmbeddingGenerator linear_variant(options);
  {
    torch::NoGradGuard no_grad;
    linear_variant->linear->weight.copy_(conv_weight_to_linear(conv_variant->conv->weight));
    linear_variant->linear->bias.copy_(conv_variant->conv->bias);
    linear_variant->position_embedding.copy_(conv_variant->position_embedding);
  }
  torch::nn::Conv2d stem(torch::nn::Conv2dOptions(6, 16, 3).stride(2).padding(1));
  const auto images = torch::randn({5, 6, 8, 8});
  const auto target = torch::randn({5, 16, 8});
  std::vector<torch::Tensor> grads;
  for (auto* gen : {&conv_variant, &linear_variant}) {
    stem->zero_grad();
    ((*gen)(torch::gelu(stem(images))) * target).sum().backward();
    grads.push_back(stem->weight.grad().clone());
  }
  EXPECT_TRUE(torch::allclose(grads[0], grads[1], 1e-4, 1e-5))
      << "max difference " << (grads[0] - grads[1]).abs().max().item<double>();
}

}  // namespace
}  // namespace dls

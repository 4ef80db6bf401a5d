// DLStudio's PatchEmbeddingGenerator: an image cut into non-overlapping p x p patches,
// each patch flattened whole and mapped to an M-vector, plus a learnable position vector
// per patch.
//
// Patch order is row-major over the patch grid (patch (i, j) is number i * (W/p) + j).
// Within a patch the values are channel-last: patch element (dy, dx, c) sits at
// (dy * p + dx) * C + c. DLStudio reshapes the unfolded [B, C*p*p, P] tensor without a
// permute, so that one of its "patch vectors" mixes three same-colour patches; here every
// vector is exactly one patch.
#pragma once

#include <cstdint>

#include <torch/nn/module.h>
#include <torch/nn/modules/conv.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/pimpl.h>
#include <torch/types.h>

namespace dls {

// images [B, C, H, W] -> patches [B, (H/p)*(W/p), p*p*C] in the order described above.
// The gradient it passes back to the images is contiguous: as a chain of views its backward
// would hand a convolutional stem a channels-last-strided gradient when p = 1, which
// LibTorch 1.13's oneDNN convolution backward turns into garbage (~1e35) instead of
// reading it right. Throws c10::Error when H or W is not divisible by p.
torch::Tensor extract_patches(const torch::Tensor& images, std::int64_t patch_size);

struct PatchEmbeddingOptions {
  TORCH_ARG(std::int64_t, image_size) = 32;       // H = W of the input images
  TORCH_ARG(std::int64_t, channels) = 3;          // C: 3 (RGB) or 1 (grayscale)
  TORCH_ARG(std::int64_t, patch_size) = 8;        // p: patches are p x p, stride p
  TORCH_ARG(std::int64_t, embedding_size) = 256;  // M
  TORCH_ARG(bool, use_conv) = false;              // Conv2d(C, M, p, stride p) instead of Linear

 public:
  std::int64_t grid_size() const { return image_size_ / patch_size_; }    // patches per side
  std::int64_t num_patches() const { return grid_size() * grid_size(); }  // P
  std::int64_t patch_dim() const { return patch_size_ * patch_size_ * channels_; }
};

class PatchEmbeddingGeneratorImpl : public torch::nn::Module {
 public:
  explicit PatchEmbeddingGeneratorImpl(const PatchEmbeddingOptions& options);

  // images [B, C, H, W] -> [B, P, M]: projected patches plus position_embedding.
  torch::Tensor forward(const torch::Tensor& images);

  const PatchEmbeddingOptions& options() const { return options_; }

  // Exactly one of the two projections exists.
  torch::nn::Linear linear{nullptr};  // Linear(p*p*C, M) on extract_patches()
  torch::nn::Conv2d conv{nullptr};    // weight [M, C, p, p]
  torch::Tensor position_embedding;   // [1, P, M], initialised N(0, 0.02^2)

 private:
  PatchEmbeddingOptions options_;
};
TORCH_MODULE(PatchEmbeddingGenerator);

// The Linear weight [M, p*p*C] that computes the same function as a Conv2d weight
// [M, C, p, p] under extract_patches()'s order: permute to [M, p, p, C] and flatten.
torch::Tensor conv_weight_to_linear(const torch::Tensor& conv_weight);

}  // namespace dls

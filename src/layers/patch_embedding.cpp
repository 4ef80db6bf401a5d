#include "dls/layers/patch_embedding.h"

#include <torch/torch.h>

namespace dls {

namespace {

// [B, C, gh*p, gw*p] <-> [B, gh*gw, p*p*C] as one autograd node whose backward returns a
// contiguous gradient (see extract_patches).
struct PatchExtraction : public torch::autograd::Function<PatchExtraction> {
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& images, std::int64_t p) {
    const auto B = images.size(0), C = images.size(1), gh = images.size(2) / p, gw = images.size(3) / p;
    ctx->saved_data["sizes"] = std::vector<std::int64_t>{B, C, gh, gw, p};
    // [B, C, gh, p, gw, p] -> [B, gh, gw, p(dy), p(dx), C] -> [B, gh*gw, p*p*C]
    return images.reshape({B, C, gh, p, gw, p}).permute({0, 2, 4, 3, 5, 1}).contiguous().view({B, gh * gw, p * p * C});
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grads) {
    const auto s = ctx->saved_data["sizes"].toIntVector();
    const auto B = s[0], C = s[1], gh = s[2], gw = s[3], p = s[4];
    // [B, gh*gw, p*p*C] -> [B, gh, gw, dy, dx, C] -> [B, C, gh, dy, gw, dx] -> [B, C, H, W]
    auto images_grad =
        grads[0].reshape({B, gh, gw, p, p, C}).permute({0, 5, 1, 3, 2, 4}).contiguous().view({B, C, gh * p, gw * p});
    return {images_grad, torch::Tensor()};
  }
};

}  // namespace

torch::Tensor extract_patches(const torch::Tensor& images, std::int64_t patch_size) {
  TORCH_CHECK(images.dim() == 4, "images must be [B, C, H, W], got ", images.sizes());
  const auto H = images.size(2), W = images.size(3);
  TORCH_CHECK(patch_size > 0 && H % patch_size == 0 && W % patch_size == 0, "image size ", H, "x", W,
              " is not divisible by the patch size ", patch_size);
  return PatchExtraction::apply(images, patch_size);
}

torch::Tensor conv_weight_to_linear(const torch::Tensor& conv_weight) {
  TORCH_CHECK(conv_weight.dim() == 4, "conv weight must be [M, C, p, p]");
  return conv_weight.permute({0, 2, 3, 1}).reshape({conv_weight.size(0), -1});
}

PatchEmbeddingGeneratorImpl::PatchEmbeddingGeneratorImpl(const PatchEmbeddingOptions& options) : options_(options) {
  TORCH_CHECK(
      options.image_size() > 0 && options.patch_size() > 0 && options.channels() > 0 && options.embedding_size() > 0,
      "patch embedding sizes must be positive");
  TORCH_CHECK(options.image_size() % options.patch_size() == 0, "image size ", options.image_size(),
              " is not divisible by the patch size ", options.patch_size());
  const auto M = options.embedding_size();
  if (options.use_conv()) {
    conv = register_module(
        "conv",
        torch::nn::Conv2d(
            torch::nn::Conv2dOptions(options.channels(), M, options.patch_size()).stride(options.patch_size())));
  } else {
    linear = register_module("linear", torch::nn::Linear(options.patch_dim(), M));
  }
  position_embedding = register_parameter("position_embedding", torch::randn({1, options.num_patches(), M}) * 0.02);
}

torch::Tensor PatchEmbeddingGeneratorImpl::forward(const torch::Tensor& images) {
  TORCH_CHECK(images.dim() == 4 && images.size(1) == options_.channels() && images.size(2) == options_.image_size() &&
                  images.size(3) == options_.image_size(),
              "expected images [B, ", options_.channels(), ", ", options_.image_size(), ", ", options_.image_size(),
              "], got ", images.sizes());
  torch::Tensor embedded;
  if (conv) {
    // [B, M, gh, gw] -> [B, M, P] -> [B, P, M]: patch order is row-major as in extract_patches.
    embedded = conv(images).flatten(2).transpose(1, 2);
  } else {
    embedded =
        torch::linear(extract_patches(images, options_.patch_size()), linear->weight, linear->bias);  // [B, P, M]
  }
  return embedded + position_embedding;
}

}  // namespace dls

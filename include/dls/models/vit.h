// DLStudio's visTransformer: patch embeddings, a learnable class token, a MasterEncoder
// stack and an MLP head on the class token's output.
//
// Sequence: [class_token; patch_1 + pos_1; ...; patch_P + pos_P], length P + 1. The
// positional embedding of the P patches lives in the PatchEmbeddingGenerator (as in
// DLStudio); the class token has no separate position vector because it is itself a
// learned vector at a fixed position, so a position vector added to it would be redundant
// (the same function with M more parameters). Unlike DLStudio's, the class token is a
// registered parameter: trained, and saved in checkpoints.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <torch/nn/module.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/modules/normalization.h>
#include <torch/nn/pimpl.h>

#include "dls/layers/dropout.h"
#include "dls/layers/patch_embedding.h"
#include "dls/layers/pixel_attention.h"
#include "dls/layers/transformer_config.h"
#include "dls/models/encoder.h"
#include "dls/util/declared.h"

namespace dls {

// DLStudio's example encoder: FG, position-wise layout, M = 256, H = 4, FFN 4M.
TransformerConfig dlstudio_vit_transformer();

// One layer of the optional convolutional stem: Conv2d(3x3, padding 1, stride) -> GELU.
// Stride 2 maps a side of n pixels to ceil(n / 2).
struct StemConv {
  std::int64_t channels = 0;  // output channels
  std::int64_t stride = 1;
  bool operator==(const StemConv& other) const { return channels == other.channels && stride == other.stride; }
};
using StemSpec = std::vector<StemConv>;

// "32,64/2,128/2" <-> {{32, 1}, {64, 2}, {128, 2}} (channels, then /stride when not 1);
// "" is no stem. Throws std::invalid_argument naming the malformed layer.
StemSpec parse_stem(const std::string& text);
std::string stem_to_string(const StemSpec& stem);

// An inter-pixel AttentionBlock (DLStudio's GenerativeDiffusion block, pixel_attention.h)
// after one stem layer: the feature map's pixels attend to each other before the patches
// are cut. after = 0: none.
struct PixelAttentionSpec {
  std::int64_t after = 0;  // 1-based stem layer it follows
  std::int64_t heads = 1;  // N (DLStudio's default: 1)
  bool enabled() const { return after > 0; }
  bool operator==(const PixelAttentionSpec& other) const { return after == other.after && heads == other.heads; }
};

// "3" (after stem layer 3, one head) or "3:4" (four heads) <-> spec; "" and "0" are none.
// Throws std::invalid_argument naming the malformed text.
PixelAttentionSpec parse_pixel_attention(const std::string& text);
std::string pixel_attention_to_string(const PixelAttentionSpec& spec);

struct ViTConfig {
  // Variant, layout and sizes of the encoder blocks (max_seq_length is set to P + 1).
  TORCH_ARG(TransformerConfig, transformer) = dlstudio_vit_transformer();
  // Height = width of the input images.
  TORCH_ARG(std::int64_t, image_size) = 32;
  // Image channels: 3 (RGB) or 1 (grayscale).
  TORCH_ARG(std::int64_t, channels) = 3;
  // Side p of the square, non-overlapping patches.
  TORCH_ARG(std::int64_t, patch_size) = 8;
  // Number of BasicEncoders in the MasterEncoder.
  TORCH_ARG(std::int64_t, num_encoders) = 8;
  // Output classes.
  TORCH_ARG(std::int64_t, num_classes) = 10;
  // Patch projection by Conv2d(C, M, p, stride p) instead of Linear(p*p*C, M).
  TORCH_ARG(bool, conv_patch_embedding) = false;
  // Optional convolutional stem before the patches are cut (empty: none, DLStudio's ViT):
  // [Conv2d(3x3, padding 1, stride) -> GELU] per layer, so the patches are cut from the
  // [B, C', H', W'] feature map of the last layer (patch_size counts its pixels). Early
  // convolutions give each token local, translation-equivariant features (Xiao et al. 2021,
  // "Early convolutions help transformers see better"); with strides of 2 they also do the
  // patchifying, e.g. 28x28 -> 14 -> 7 -> 4x4 tokens with patch size 1.
  TORCH_ARG(StemSpec, stem) = {};
  // Optional inter-pixel attention block after one stem layer (whose channels must be a
  // multiple of 32, the block's GroupNorm groups, and of the heads).
  TORCH_ARG(PixelAttentionSpec, pixel_attention) = {};
  // Hidden width of the head Linear(M, h) -> ReLU -> Linear(h, classes).
  TORCH_ARG(std::int64_t, head_hidden_size) = 512;
  // Dropout before the head (training only).
  TORCH_ARG(double, head_dropout) = 0.1;

 public:  // TORCH_ARG leaves the section private
  // Throws c10::Error (TORCH_CHECK) for inconsistent sizes.
  void validate() const;
  std::int64_t num_patches() const;  // P = grid_size^2
  // Side and channels of the map the patches are cut from: the image's without a stem.
  std::int64_t feature_size() const;
  std::int64_t feature_channels() const;
  std::int64_t grid_size() const { return feature_size() / patch_size_; }  // patches per side
  // transformer() with max_seq_length = P + 1: what the encoder blocks are built with.
  TransformerConfig encoder_config() const;
  // The patch embedding's options: the stem's output size and channels when there is one.
  PatchEmbeddingOptions patch_options() const;
  // "FG/positionwise M=256 H=4 enc=8 img=32x32x3 patch=8 (P=16) classes=10 ffn=4M linear head=512"
  std::string summary() const;

  // DLStudio's example: CIFAR-10 32x32x3, patch 8, M = 256, 8 FG encoders, 4 heads,
  // position-wise layout.
  static ViTConfig dlstudio();

  // Its keys under "model." in a checkpoint and its flags (util/declared.h); the image size,
  // channels and classes come from the dataset.
  template <typename Fields>
  static void declare(ViTConfig& m, Fields& f);
};

template <typename Fields>
void ViTConfig::declare(ViTConfig& m, Fields& f) {
  using util::Setting;
  f(m.patch_size(), Setting("patch_size", "--patch-size",
                            "patch side p, in pixels of the stem's output (of the image without a stem), which it "
                            "must divide")
                        .range(1, 4096)
                        .fixed());
  auto& t = m.transformer();
  f.section("transformer", [&] { TransformerConfig::declare_sizes(t, f); });
  f(m.num_encoders(), Setting("num_encoders", "--encoders", "number of BasicEncoders").range(1, 1000).fixed());
  f.section("transformer", [&] {
    TransformerConfig::declare_variant(t, f,
                                       Setting("variant", "--variant", "FG (post-LN, DLStudio) or PreLN")
                                           .one_of(kVariantNames.names())
                                           .in_any_case()
                                           .fixed());
    TransformerConfig::declare_layout(
        t, f,
        Setting("layout", "--layout", "positionwise (DLStudio >= 2.5), vaswani or dlstudio (flattened)")
            .one_of({"positionwise", "vaswani", "dlstudio"})
            .in_any_case()
            .fixed());
    f.property(  // the encoder's sequence: the P patches and the class token
        Setting("max_seq_length", "", ""), [&] { return m.num_patches() + 1; },
        [&](std::int64_t length) { t.max_seq_length(length); });
  });
  f(m.conv_patch_embedding(),
    Setting("conv_patch_embedding", "--conv-patch-embedding", "project patches with Conv2d instead of Linear").fixed());
  // Written before the stem (or its older keys, from_settings) and the pixel attention: none.
  f.property(
      Setting("stem", "--stem",
              "3x3 convolutions (GELU) before the patches are cut, as CHANNELS[/STRIDE] per layer, e.g. "
              "32,64/2,128/2 (\"\": none, DLStudio's ViT); the patch size counts the last layer's pixels")
          .default_when_absent()
          .fixed(),
      [&] { return stem_to_string(m.stem()); }, [&](const std::string& text) { m.stem(parse_stem(text)); });
  f.property(
      Setting("pixel_attention", "--pixel-attention",
              "an inter-pixel attention block (DLStudio's GenerativeDiffusion AttentionBlock) after stem "
              "layer LAYER, as LAYER[:HEADS], e.g. 3 or 3:4 (\"\" or 0: none); that layer's channels must be a "
              "multiple of 32")
          .default_when_absent()
          .fixed(),
      [&] { return pixel_attention_to_string(m.pixel_attention()); },
      [&](const std::string& text) { m.pixel_attention(parse_pixel_attention(text)); });
  f(m.head_hidden_size(),
    Setting("head_hidden_size", "--head-hidden", "hidden width of the classification head").range(1, 65536).fixed());
  f(m.head_dropout(),
    Setting("head_dropout", "--head-dropout", "dropout before the head (training only)").range(0, 0.99).fixed());
  f(m.image_size(), Setting("image_size", "", ""));
  f(m.channels(), Setting("channels", "", ""));
  f(m.num_classes(), Setting("num_classes", "", ""));
}

class visTransformerImpl : public torch::nn::Module {
 public:
  explicit visTransformerImpl(const ViTConfig& config);

  // images [B, C, H, W] -> logits [B, classes]. attention (optional) receives one
  // [B, H, P+1, P+1] self-attention tensor per encoder layer (position 0 = class token).
  torch::Tensor forward(const torch::Tensor& images, std::vector<torch::Tensor>* attention = nullptr);

  // images [B, C, H, W] -> the encoder's input sequence [B, P+1, M].
  torch::Tensor embed(const torch::Tensor& images);

  // images [B, C, H, W] -> the map the patches are cut from [B, C', H', W'] (the images
  // themselves without a stem). pixel_weights (optional; needs the pixel attention block)
  // receives its attention weights [B, N, T, T] over the T pixels of its input map.
  torch::Tensor feature_map(const torch::Tensor& images, torch::Tensor* pixel_weights = nullptr);

  const ViTConfig& config() const { return config_; }

  // Empty unless config.stem() has layers: Conv2d 3x3 -> GELU per layer.
  torch::nn::Sequential stem{nullptr};
  // Null unless config.pixel_attention() is enabled; runs after stem layer `after`.
  AttentionBlock pixel_attention{nullptr};
  PatchEmbeddingGenerator patch_embedding_generator{nullptr};
  torch::Tensor class_token;  // [1, 1, M], initialised N(0, 0.02^2)
  MasterEncoder master_encoder{nullptr};
  // PreLN only: the blocks leave their output un-normalised, so (as in standard pre-LN
  // ViTs) a LayerNorm precedes the head. FG's blocks end in a LayerNorm already.
  torch::nn::LayerNorm final_norm{nullptr};
  Dropout head_dropout{nullptr};
  torch::nn::Linear head_fc1{nullptr}, head_fc2{nullptr};

 private:
  ViTConfig config_;
};
TORCH_MODULE(visTransformer);

// The class token's attention over the patches in one layer's weights [B, H, P+1, P+1]:
// row 0 without column 0, i.e. [B, H, P]. Each row sums to at most 1 (the rest went to the
// class token itself).
torch::Tensor class_token_attention(const torch::Tensor& layer_weights);

}  // namespace dls

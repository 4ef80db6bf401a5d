#include "dls/models/vit.h"

#include <gtest/gtest.h>

#include <iostream>

#include <torch/torch.h>

#include "dls/models/seq2seq.h"  // count_parameters

namespace dls {
namespace {

ViTConfig tiny_config(Variant variant = Variant::kFG, Layout layout = Layout::kPositionwise) {
  ViTConfig config;
  config.transformer().variant(variant).layout(layout).embedding_size(16).num_heads(4).ffn_multiplier(2);
  config.image_size(28).channels(1).patch_size(7).num_encoders(2).num_classes(10).head_hidden_size(32);
  return config;
}

TEST(ViTConfig, DLStudioPresetIsDLStudiosExample) {
  const auto c = ViTConfig::dlstudio();
  EXPECT_EQ(c.image_size(), 32);
  EXPECT_EQ(c.channels(), 3);
  EXPECT_EQ(c.patch_size(), 8);
  EXPECT_EQ(c.num_patches(), 16);
  EXPECT_EQ(c.encoder_config().max_seq_length(), 17);
  EXPECT_EQ(c.transformer().embedding_size(), 256);
  EXPECT_EQ(c.transformer().num_heads(), 4);
  EXPECT_EQ(c.num_encoders(), 8);
  EXPECT_EQ(c.transformer().variant(), Variant::kFG);
  EXPECT_EQ(c.transformer().layout(), Layout::kPositionwise);
}

// Hand count for DLStudio's example (M = 256, s = 64, 8 encoders, patch 8x8x3, 10 classes):
//   per head WQ, WK, WV = 3 * (64*64 + 64) = 12,480; 4 heads           49,920
//   norm1 + norm2 = 2 * (256 + 256)                                      1,024
//   FFN W1 = 256*1024 + 1024 = 263,168; W2 = 1024*256 + 256 = 262,400  525,568
//   one BasicEncoder                                                   576,512   x 8 = 4,612,096
//   patch Linear(192, 256) = 49,408; positions 16*256 = 4,096; class token 256
//   head Linear(256, 512) = 131,584; Linear(512, 10) = 5,130
//   total 4,612,096 + 49,408 + 4,096 + 256 + 131,584 + 5,130 = 4,802,570
TEST(visTransformer, DLStudioPresetParameterCount) {
  visTransformer model(ViTConfig::dlstudio());
  const auto count = count_parameters(*model);
  std::cout << "dlstudio preset visTransformer: " << count.parameters << " learnable parameters in " << count.tensors
            << " tensors\n";
  EXPECT_EQ(count.parameters, 4802570);
  // 8 encoders x (4 heads x 6 + 2 norms x 2 + 2 FFN x 2) + patch 2 + position 1 + class 1 + head 4
  EXPECT_EQ(count.tensors, 8 * (24 + 4 + 4) + 2 + 1 + 1 + 4);
}

TEST(visTransformer, ShapesAndAttentionWeights) {
  for (auto layout : {Layout::kPositionwise, Layout::kVaswani, Layout::kDLStudio}) {
    for (auto variant : {Variant::kFG, Variant::kPreLN}) {
      visTransformer model(tiny_config(variant, layout));
      std::vector<torch::Tensor> weights;
      const auto logits = model(torch::randn({3, 1, 28, 28}), &weights);
      EXPECT_EQ(logits.sizes(), (torch::IntArrayRef{3, 10}));
      ASSERT_EQ(weights.size(), 2u);
      EXPECT_EQ(weights[1].sizes(), (torch::IntArrayRef{3, 4, 17, 17}));
      const auto cls = class_token_attention(weights[1]);
      EXPECT_EQ(cls.sizes(), (torch::IntArrayRef{3, 4, 16}));
      // Row 0 of the softmax sums to 1: the patches get all of it but the class token's share.
      EXPECT_TRUE(torch::allclose(cls.sum(-1) + weights[1].select(2, 0).select(2, 0), torch::ones({3, 4}), 1e-5, 1e-5));
      EXPECT_EQ(model->final_norm.is_empty(), variant == Variant::kFG);
    }
  }
}

TEST(visTransformer, ClassTokenIsATrainedParameter) {
  visTransformer model(tiny_config());
  const auto params = model->named_parameters();
  ASSERT_TRUE(params.contains("class_token"));
  EXPECT_EQ(params["class_token"].sizes(), (torch::IntArrayRef{1, 1, 16}));
  ASSERT_TRUE(params.contains("patch_embedding_generator.position_embedding"));
  model(torch::randn({2, 1, 28, 28})).sum().backward();
  ASSERT_TRUE(model->class_token.grad().defined());
  EXPECT_GT(model->class_token.grad().abs().sum().item<double>(), 0.0);
  EXPECT_GT(model->patch_embedding_generator->linear->weight.grad().abs().sum().item<double>(), 0.0);
}

TEST(visTransformer, DropoutOffInEvalMode) {
  auto config = tiny_config(Variant::kPreLN, Layout::kVaswani);
  config.head_dropout(0.5).transformer().dropout(0.3);
  visTransformer model(config);
  const auto images = torch::randn({4, 1, 28, 28});
  model->train();
  EXPECT_FALSE(torch::equal(model(images), model(images)));  // dropout draws differ
  model->eval();
  EXPECT_TRUE(torch::equal(model(images), model(images)));
}

TEST(visTransformer, ConvPatchEmbeddingVariant) {
  auto config = tiny_config();
  config.conv_patch_embedding(true);
  visTransformer model(config);
  EXPECT_TRUE(model->named_parameters().contains("patch_embedding_generator.conv.weight"));
  EXPECT_EQ(model(torch::randn({2, 1, 28, 28})).sizes(), (torch::IntArrayRef{2, 10}));
}

TEST(visTransformer, ConvolutionalStemFeedsThePatchEmbedding) {
  auto config = tiny_config();
  config.stem({StemConv{5, 1}, StemConv{5, 1}});
  visTransformer model(config);
  const auto params = model->named_parameters();
  EXPECT_TRUE(params.contains("stem.0.weight"));  // Conv2d(1, 5, 3)
  EXPECT_TRUE(params.contains("stem.2.weight"));  // Conv2d(5, 5, 3)
  EXPECT_EQ(params["stem.2.weight"].sizes(), (torch::IntArrayRef{5, 5, 3, 3}));
  EXPECT_EQ(model->patch_embedding_generator->options().channels(), 5);
  EXPECT_EQ(model->patch_embedding_generator->linear->weight.size(1), 7 * 7 * 5);
  const auto images = torch::randn({3, 1, 28, 28});
  // The patches are cut from the stem's GELU output, not from the image.
  namespace F = torch::nn::functional;
  const auto conv = [&](const torch::Tensor& x, const std::string& layer) {
    return F::conv2d(x, params[layer + ".weight"], F::Conv2dFuncOptions().bias(params[layer + ".bias"]).padding(1));
  };
  const auto features = torch::gelu(conv(torch::gelu(conv(images, "stem.0")), "stem.2"));
  EXPECT_TRUE(
      torch::allclose(model->embed(images).slice(1, 1), model->patch_embedding_generator(features), 1e-6, 1e-6));
  EXPECT_EQ(model(images).sizes(), (torch::IntArrayRef{3, 10}));
}

// Stride-2 layers shrink the map the patches are cut from: 28 -> 14 -> 7 -> 4 (padding 1,
// so ceil(n/2)), and patch size 1 makes each of the 4x4 positions a token.
TEST(visTransformer, StridedStemSetsTheTokenGrid) {
  auto config = tiny_config(Variant::kPreLN, Layout::kVaswani);
  config.stem({StemConv{4, 1}, StemConv{6, 2}, StemConv{8, 2}, StemConv{8, 2}}).patch_size(1);
  EXPECT_EQ(config.feature_size(), 4);
  EXPECT_EQ(config.feature_channels(), 8);
  EXPECT_EQ(config.num_patches(), 16);
  visTransformer model(config);
  const auto params = model->named_parameters();
  namespace F = torch::nn::functional;
  auto x = torch::randn({2, 1, 28, 28});
  const auto images = x.clone();
  for (int layer = 0; layer < 4; ++layer) {
    const auto name = "stem." + std::to_string(2 * layer);
    x = torch::gelu(
        F::conv2d(x, params[name + ".weight"],
                  F::Conv2dFuncOptions().bias(params[name + ".bias"]).padding(1).stride(config.stem()[layer].stride)));
  }
  ASSERT_EQ(x.sizes(), (torch::IntArrayRef{2, 8, 4, 4}));
  EXPECT_TRUE(torch::allclose(model->embed(images).slice(1, 1), model->patch_embedding_generator(x), 1e-6, 1e-6));
  EXPECT_EQ(model(images).sizes(), (torch::IntArrayRef{2, 10}));
  EXPECT_NE(config.summary().find("stem=4,6/2,8/2,8/2"), std::string::npos) << config.summary();
  // The patch size must divide the stem's output, not the image.
  config.patch_size(7);
  EXPECT_THROW(config.validate(), c10::Error);
}

TEST(StemSpec, ParsesAndPrints) {
  const StemSpec stem{{32, 1}, {64, 2}, {128, 2}};
  EXPECT_EQ(parse_stem("32,64/2,128/2"), stem);
  EXPECT_EQ(stem_to_string(stem), "32,64/2,128/2");
  EXPECT_TRUE(parse_stem("").empty());
  EXPECT_EQ(stem_to_string({}), "");
  for (const char* bad : {"32,", ",32", "32,,64", "0", "32/0", "a", "32/2/2", "-4", "32 ,64"}) {
    EXPECT_THROW(parse_stem(bad), std::invalid_argument) << bad;
  }
}

TEST(PixelAttentionSpec, ParsesAndPrints) {
  EXPECT_EQ(parse_pixel_attention("3"), (PixelAttentionSpec{3, 1}));
  EXPECT_EQ(parse_pixel_attention("2:4"), (PixelAttentionSpec{2, 4}));
  EXPECT_FALSE(parse_pixel_attention("").enabled());
  EXPECT_FALSE(parse_pixel_attention("0").enabled());
  EXPECT_EQ(pixel_attention_to_string({3, 1}), "3");
  EXPECT_EQ(pixel_attention_to_string({2, 4}), "2:4");
  EXPECT_EQ(pixel_attention_to_string({}), "");
  for (const char* bad : {"a", "3:", ":2", "3:0", "-1", "3:2:1", " 3"}) {
    EXPECT_THROW(parse_pixel_attention(bad), std::invalid_argument) << bad;
  }
}

// One AttentionBlock after stem layer 2 (28 -> 14, 32 channels, T = 196 pixels). Its
// proj_out starts at zero, so a fresh model computes what the same model without it does.
TEST(visTransformer, PixelAttentionFollowsTheNamedStemLayer) {
  torch::manual_seed(3);
  auto config = tiny_config(Variant::kPreLN, Layout::kVaswani);
  config.stem({StemConv{32, 1}, StemConv{32, 2}, StemConv{8, 2}}).patch_size(1);
  auto plain_config = config;
  config.pixel_attention({2, 2});
  visTransformer plain(plain_config), model(config);
  {
    torch::NoGradGuard no_grad;
    auto target = model->named_parameters();
    for (const auto& item : plain->named_parameters()) target[item.key()].copy_(item.value());
  }
  EXPECT_EQ(count_parameters(*model).parameters - count_parameters(*plain).parameters, 4 * 32 * 32 + 6 * 32);
  EXPECT_TRUE(model->named_parameters().contains("pixel_attention.qkv.weight"));
  const auto images = torch::randn({2, 1, 28, 28});
  torch::Tensor weights;
  const auto features = model->feature_map(images, &weights);
  EXPECT_EQ(weights.sizes(), (torch::IntArrayRef{2, 2, 196, 196}));
  EXPECT_TRUE(torch::equal(features, plain->feature_map(images)));
  EXPECT_THROW(plain->feature_map(images, &weights), c10::Error);
  // Once proj_out is not zero the block changes the tokens, and it sits between the
  // second layer's GELU and the third convolution.
  {
    torch::NoGradGuard no_grad;
    model->pixel_attention->proj_out->weight.normal_(0, 0.1);
  }
  const auto without_block = plain->feature_map(images);
  EXPECT_FALSE(torch::allclose(model->feature_map(images), without_block));
  auto x = images;
  int index = 0;
  for (auto& module : *plain->stem) {
    x = module.forward(x);
    if (++index == 4) x = model->pixel_attention(x);
  }
  EXPECT_TRUE(torch::allclose(model->feature_map(images), x, 1e-6, 1e-6));
  EXPECT_NE(config.summary().find("pixel-attention=2:2"), std::string::npos) << config.summary();
  // The layer must exist and have a multiple of 32 channels.
  EXPECT_THROW(ViTConfig(config).pixel_attention({4, 1}).validate(), c10::Error);
  EXPECT_THROW(ViTConfig(config).pixel_attention({3, 1}).validate(), c10::Error);  // 8 channels
  EXPECT_THROW(ViTConfig(config).pixel_attention({1, 3}).validate(), c10::Error);  // 32 % 3
}

TEST(ViTConfig, InvariantsAreChecked) {
  EXPECT_THROW(visTransformer(tiny_config().patch_size(8)), c10::Error);  // 28 % 8 != 0
  auto heads = tiny_config();
  heads.transformer().num_heads(3);  // 16 % 3 != 0
  EXPECT_THROW(visTransformer{heads}, c10::Error);
  EXPECT_THROW(tiny_config().num_classes(1).validate(), c10::Error);
  EXPECT_NO_THROW(tiny_config().validate());
}

}  // namespace
}  // namespace dls

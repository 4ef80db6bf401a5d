#include "dls/models/vit.h"

#include <sstream>

#include <torch/torch.h>

namespace dls {

TransformerConfig dlstudio_vit_transformer() {
  TransformerConfig config;
  config.variant(Variant::kFG)
      .layout(Layout::kPositionwise)
      .embedding_size(256)
      .num_heads(4)
      .max_seq_length(17)
      .ffn_multiplier(4)
      .dropout(0.0);
  return config;
}

void ViTConfig::validate() const {
  TORCH_CHECK(image_size_ > 0 && patch_size_ > 0 && channels_ > 0,
              "image size, patch size and channels must be positive");
  TORCH_CHECK(image_size_ % patch_size_ == 0, "image size ", image_size_,
              " is not divisible by the patch size ", patch_size_);
  TORCH_CHECK(num_encoders_ > 0, "need at least one encoder");
  TORCH_CHECK(num_classes_ > 1, "need at least two classes");
  TORCH_CHECK(head_hidden_size_ > 0, "head hidden size must be positive");
  TORCH_CHECK(head_dropout_ >= 0.0 && head_dropout_ < 1.0, "head dropout must be in [0, 1)");
  TORCH_CHECK(stem_channels_ >= 0, "stem channels must be 0 (no stem) or positive");
  TORCH_CHECK(stem_channels_ == 0 || stem_layers_ > 0, "a stem needs at least one layer");
  encoder_config().validate();  // M % H == 0 among others
}

std::int64_t ViTConfig::num_patches() const { return grid_size() * grid_size(); }

TransformerConfig ViTConfig::encoder_config() const {
  TransformerConfig config = transformer_;
  config.max_seq_length(num_patches() + 1);
  return config;
}

PatchEmbeddingOptions ViTConfig::patch_options() const {
  return PatchEmbeddingOptions()
      .image_size(image_size_)
      .channels(stem_channels_ > 0 ? stem_channels_ : channels_)
      .patch_size(patch_size_)
      .embedding_size(transformer_.embedding_size())
      .use_conv(conv_patch_embedding_);
}

std::string ViTConfig::summary() const {
  const auto& t = transformer_;
  std::ostringstream out;
  out << to_string(t.variant()) << "/" << to_string(t.layout()) << " M=" << t.embedding_size()
      << " H=" << t.num_heads() << " enc=" << num_encoders_ << " img=" << image_size_ << "x"
      << image_size_ << "x" << channels_ << " patch=" << patch_size_ << " (P=" << num_patches()
      << ") classes=" << num_classes_;
  if (!t.flattened()) out << " ffn=" << t.ffn_multiplier() << "M";
  if (t.effective_dropout() > 0) out << " dropout=" << t.dropout();
  if (stem_channels_ > 0) out << " stem=" << stem_layers_ << "x3x3x" << stem_channels_;
  out << (conv_patch_embedding_ ? " conv" : " linear") << " head=" << head_hidden_size_;
  return out.str();
}

util::KeyValues ViTConfig::to_settings() const {
  util::KeyValues settings;
  settings.merge(dls::to_settings(encoder_config()), "transformer");
  settings.set("image_size", image_size_);
  settings.set("channels", channels_);
  settings.set("patch_size", patch_size_);
  settings.set("num_encoders", num_encoders_);
  settings.set("num_classes", num_classes_);
  settings.set("conv_patch_embedding", conv_patch_embedding_);
  settings.set("stem_channels", stem_channels_);
  settings.set("stem_layers", stem_layers_);
  settings.set("head_hidden_size", head_hidden_size_);
  settings.set("head_dropout", head_dropout_);
  return settings;
}

ViTConfig ViTConfig::from_settings(const util::KeyValues& settings) {
  ViTConfig config;
  config.transformer(transformer_config_from_settings(settings.section("transformer")))
      .image_size(settings.get_int("image_size"))
      .channels(settings.get_int("channels"))
      .patch_size(settings.get_int("patch_size"))
      .num_encoders(settings.get_int("num_encoders"))
      .num_classes(settings.get_int("num_classes"))
      .conv_patch_embedding(settings.get_bool("conv_patch_embedding"))
      .head_hidden_size(settings.get_int("head_hidden_size"))
      .head_dropout(settings.get_double("head_dropout"));
  // Checkpoints written before the stem existed have no stem.
  if (settings.has("stem_channels")) {
    config.stem_channels(settings.get_int("stem_channels")).stem_layers(settings.get_int("stem_layers"));
  }
  return config;
}

ViTConfig ViTConfig::dlstudio() { return ViTConfig(); }

visTransformerImpl::visTransformerImpl(const ViTConfig& config) : config_(config) {
  config.validate();
  const auto M = config.transformer().embedding_size();
  if (config.stem_channels() > 0) {
    stem = register_module("stem", torch::nn::Sequential());
    auto in_channels = config.channels();
    for (std::int64_t i = 0; i < config.stem_layers(); ++i) {
      stem->push_back(torch::nn::Conv2d(
          torch::nn::Conv2dOptions(in_channels, config.stem_channels(), 3).padding(1)));
      stem->push_back(torch::nn::GELU());
      in_channels = config.stem_channels();
    }
  }
  patch_embedding_generator =
      register_module("patch_embedding_generator", PatchEmbeddingGenerator(config.patch_options()));
  class_token = register_parameter("class_token", torch::randn({1, 1, M}) * 0.02);
  master_encoder =
      register_module("master_encoder", MasterEncoder(config.encoder_config(), config.num_encoders()));
  if (config.transformer().variant() == Variant::kPreLN) {
    final_norm = register_module("final_norm", torch::nn::LayerNorm(torch::nn::LayerNormOptions({M})));
  }
  head_dropout = register_module("head_dropout", torch::nn::Dropout(config.head_dropout()));
  head_fc1 = register_module("head_fc1", torch::nn::Linear(M, config.head_hidden_size()));
  head_fc2 = register_module("head_fc2",
                             torch::nn::Linear(config.head_hidden_size(), config.num_classes()));
}

torch::Tensor visTransformerImpl::embed(const torch::Tensor& images) {
  // [B, C, H, W] -> (stem) [B, S, H, W] -> [B, P, M]
  const auto patches = patch_embedding_generator(stem ? stem->forward(images) : images);
  return torch::cat({class_token.expand({patches.size(0), 1, -1}), patches}, 1);
}

torch::Tensor visTransformerImpl::forward(const torch::Tensor& images,
                                          std::vector<torch::Tensor>* attention) {
  auto out = master_encoder->forward(embed(images), torch::Tensor(), attention);  // [B, P+1, M]
  auto cls = out.select(1, 0);                              // [B, M]
  if (final_norm) cls = final_norm(cls);
  return head_fc2(torch::relu(head_fc1(head_dropout(cls))));  // [B, classes]
}

torch::Tensor class_token_attention(const torch::Tensor& layer_weights) {
  TORCH_CHECK(layer_weights.dim() == 4 && layer_weights.size(2) == layer_weights.size(3),
              "attention weights must be [B, H, L, L]");
  return layer_weights.select(2, 0).slice(2, 1);  // [B, H, P]
}

}  // namespace dls

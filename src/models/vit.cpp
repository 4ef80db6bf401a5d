#include "dls/models/vit.h"

#include <sstream>
#include <stdexcept>

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

StemSpec parse_stem(const std::string& text) {
  StemSpec stem;
  std::size_t start = 0;
  while (start < text.size()) {
    const auto end = std::min(text.find(',', start), text.size());
    const auto layer = text.substr(start, end - start);
    const auto slash = layer.find('/');
    const auto number = [&](const std::string& digits) -> std::int64_t {
      if (digits.empty() || digits.size() > 6 || digits.find_first_not_of("0123456789") != std::string::npos ||
          std::stoll(digits) == 0) {
        throw std::invalid_argument("stem layer '" + layer + "' in '" + text +
                                    "': expected CHANNELS or CHANNELS/STRIDE, positive integers");
      }
      return std::stoll(digits);
    };
    StemConv conv;
    conv.channels = number(layer.substr(0, slash));
    if (slash != std::string::npos) conv.stride = number(layer.substr(slash + 1));
    stem.push_back(conv);
    start = end + 1;
    if (end + 1 == text.size()) throw std::invalid_argument("stem '" + text + "' ends with a comma");
  }
  return stem;
}

std::string stem_to_string(const StemSpec& stem) {
  std::string text;
  for (const auto& conv : stem) {
    if (!text.empty()) text += ",";
    text += std::to_string(conv.channels);
    if (conv.stride != 1) text += "/" + std::to_string(conv.stride);
  }
  return text;
}

PixelAttentionSpec parse_pixel_attention(const std::string& text) {
  const auto number = [&](const std::string& digits, bool zero_ok) -> std::int64_t {
    if (digits.empty() || digits.size() > 6 || digits.find_first_not_of("0123456789") != std::string::npos ||
        (!zero_ok && std::stoll(digits) == 0)) {
      throw std::invalid_argument("pixel attention '" + text +
                                  "': expected LAYER or LAYER:HEADS (stem layer it follows, heads), "
                                  "non-negative integers");
    }
    return std::stoll(digits);
  };
  PixelAttentionSpec spec;
  if (text.empty()) return spec;
  const auto colon = text.find(':');
  spec.after = number(text.substr(0, colon), true);
  if (colon != std::string::npos) spec.heads = number(text.substr(colon + 1), false);
  if (spec.after == 0 && colon != std::string::npos)
    throw std::invalid_argument("pixel attention '" + text + "': layer 0 means none, so it takes no heads");
  return spec;
}

std::string pixel_attention_to_string(const PixelAttentionSpec& spec) {
  if (!spec.enabled()) return "";
  return std::to_string(spec.after) + (spec.heads == 1 ? "" : ":" + std::to_string(spec.heads));
}

void ViTConfig::validate() const {
  TORCH_CHECK(image_size_ > 0 && patch_size_ > 0 && channels_ > 0,
              "image size, patch size and channels must be positive");
  for (const auto& conv : stem_) {
    TORCH_CHECK(conv.channels > 0 && conv.stride > 0, "stem layers need positive channels and strides");
  }
  if (pixel_attention_.enabled()) {
    TORCH_CHECK(pixel_attention_.after <= static_cast<std::int64_t>(stem_.size()), "pixel attention after stem layer ",
                pixel_attention_.after, ", but the stem has ", stem_.size(), " layers");
    const auto channels = stem_[static_cast<std::size_t>(pixel_attention_.after - 1)].channels;
    TORCH_CHECK(pixel_attention_.heads > 0 && channels % 32 == 0 && channels % pixel_attention_.heads == 0,
                "pixel attention after stem layer ", pixel_attention_.after, ": its ", channels,
                " channels must be a multiple of 32 (GroupNorm groups) and of the ", pixel_attention_.heads, " heads");
  }
  TORCH_CHECK(feature_size() % patch_size_ == 0, stem_.empty() ? "image size " : "stem output size ", feature_size(),
              " is not divisible by the patch size ", patch_size_);
  TORCH_CHECK(num_encoders_ > 0, "need at least one encoder");
  TORCH_CHECK(num_classes_ > 1, "need at least two classes");
  TORCH_CHECK(head_hidden_size_ > 0, "head hidden size must be positive");
  TORCH_CHECK(head_dropout_ >= 0.0 && head_dropout_ < 1.0, "head dropout must be in [0, 1)");
  encoder_config().validate();  // M % H == 0 among others
}

std::int64_t ViTConfig::num_patches() const { return grid_size() * grid_size(); }

std::int64_t ViTConfig::feature_size() const {
  auto size = image_size_;
  for (const auto& conv : stem_) size = (size - 1) / conv.stride + 1;  // 3x3, padding 1
  return size;
}

std::int64_t ViTConfig::feature_channels() const { return stem_.empty() ? channels_ : stem_.back().channels; }

TransformerConfig ViTConfig::encoder_config() const {
  TransformerConfig config = transformer_;
  config.max_seq_length(num_patches() + 1);
  return config;
}

PatchEmbeddingOptions ViTConfig::patch_options() const {
  return PatchEmbeddingOptions()
      .image_size(feature_size())
      .channels(feature_channels())
      .patch_size(patch_size_)
      .embedding_size(transformer_.embedding_size())
      .use_conv(conv_patch_embedding_);
}

std::string ViTConfig::summary() const {
  const auto& t = transformer_;
  std::ostringstream out;
  out << to_string(t.variant()) << "/" << to_string(t.layout()) << " M=" << t.embedding_size() << " H=" << t.num_heads()
      << " enc=" << num_encoders_ << " img=" << image_size_ << "x" << image_size_ << "x" << channels_
      << " patch=" << patch_size_ << " (P=" << num_patches() << ") classes=" << num_classes_;
  if (!t.flattened()) out << " ffn=" << t.ffn_multiplier() << "M";
  if (t.effective_dropout() > 0) out << " dropout=" << t.dropout();
  if (!stem_.empty()) out << " stem=" << stem_to_string(stem_);
  if (pixel_attention_.enabled()) out << " pixel-attention=" << pixel_attention_to_string(pixel_attention_);
  out << (conv_patch_embedding_ ? " conv" : " linear") << " head=" << head_hidden_size_;
  return out.str();
}

ViTConfig ViTConfig::dlstudio() { return ViTConfig(); }

visTransformerImpl::visTransformerImpl(const ViTConfig& config) : config_(config) {
  config.validate();
  const auto M = config.transformer().embedding_size();
  if (!config.stem().empty()) {
    stem = register_module("stem", torch::nn::Sequential());
    auto in_channels = config.channels();
    for (const auto& conv : config.stem()) {
      stem->push_back(
          torch::nn::Conv2d(torch::nn::Conv2dOptions(in_channels, conv.channels, 3).stride(conv.stride).padding(1)));
      stem->push_back(torch::nn::GELU());
      in_channels = conv.channels;
    }
  }
  if (config.pixel_attention().enabled()) {
    const auto& spec = config.pixel_attention();
    pixel_attention = register_module(
        "pixel_attention",
        AttentionBlock(AttentionBlockOptions(config.stem()[static_cast<std::size_t>(spec.after - 1)].channels)
                           .num_heads(spec.heads)));
  }
  patch_embedding_generator =
      register_module("patch_embedding_generator", PatchEmbeddingGenerator(config.patch_options()));
  class_token = register_parameter("class_token", torch::randn({1, 1, M}) * 0.02);
  master_encoder = register_module("master_encoder", MasterEncoder(config.encoder_config(), config.num_encoders()));
  if (config.transformer().variant() == Variant::kPreLN) {
    final_norm = register_module("final_norm", torch::nn::LayerNorm(torch::nn::LayerNormOptions({M})));
  }
  head_dropout = register_module("head_dropout", Dropout(config.head_dropout()));
  head_fc1 = register_module("head_fc1", torch::nn::Linear(M, config.head_hidden_size()));
  head_fc2 = register_module("head_fc2", torch::nn::Linear(config.head_hidden_size(), config.num_classes()));
}

torch::Tensor visTransformerImpl::feature_map(const torch::Tensor& images, torch::Tensor* pixel_weights) {
  TORCH_CHECK(pixel_weights == nullptr || pixel_attention, "this model has no pixel attention block");
  if (!stem) return images;
  // The stem holds Conv2d, GELU per layer: the block follows the after-th GELU.
  const auto block_at = 2 * config_.pixel_attention().after;
  auto x = images;
  std::int64_t index = 0;
  for (auto& module : *stem) {
    x = module.forward(x);
    if (pixel_attention && ++index == block_at) x = pixel_attention->forward_with_weights(x, pixel_weights);
  }
  return x;
}

torch::Tensor visTransformerImpl::embed(const torch::Tensor& images) {
  // [B, C, H, W] -> (stem, pixel attention) [B, S, H', W'] -> [B, P, M]
  const auto patches = patch_embedding_generator(feature_map(images));
  return torch::cat({class_token.expand({patches.size(0), 1, -1}), patches}, 1);
}

torch::Tensor visTransformerImpl::forward(const torch::Tensor& images, std::vector<torch::Tensor>* attention) {
  auto out = master_encoder->forward(embed(images), torch::Tensor(), attention);  // [B, P+1, M]
  auto cls = out.select(1, 0);                                                    // [B, M]
  if (final_norm) cls = final_norm(cls);
  return head_fc2(torch::relu(head_fc1(head_dropout(cls))));  // [B, classes]
}

torch::Tensor class_token_attention(const torch::Tensor& layer_weights) {
  TORCH_CHECK(layer_weights.dim() == 4 && layer_weights.size(2) == layer_weights.size(3),
              "attention weights must be [B, H, L, L]");
  return layer_weights.select(2, 0).slice(2, 1);  // [B, H, P]
}

}  // namespace dls

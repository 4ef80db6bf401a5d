#include "dls/layers/transformer_config.h"

#include <algorithm>
#include <cctype>
#include <stdexcept>

#include <c10/util/Exception.h>

namespace dls {

namespace {
std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}
}  // namespace

void TransformerConfig::validate() const {
  TORCH_CHECK(embedding_size_ > 0 && num_heads_ > 0 && max_seq_length_ > 1,
              "embedding size, heads and max sequence length must be positive (L >= 2)");
  TORCH_CHECK(embedding_size_ % num_heads_ == 0, "embedding size M = ", embedding_size_,
              " is not divisible by the number of heads H = ", num_heads_);
  TORCH_CHECK(ffn_multiplier_ > 0, "ffn multiplier must be positive");
  TORCH_CHECK(dropout_ >= 0.0 && dropout_ < 1.0, "dropout must be in [0, 1), got ", dropout_);
}

std::string to_string(Variant variant) { return variant == Variant::kFG ? "FG" : "PreLN"; }

std::string to_string(Layout layout) {
  switch (layout) {
    case Layout::kDLStudio:
      return "dlstudio";
    case Layout::kPositionwise:
      return "positionwise";
    case Layout::kVaswani:
      return "vaswani";
  }
  return "?";
}

Variant parse_variant(const std::string& name) {
  const std::string key = lower(name);
  if (key == "fg" || key == "postln" || key == "post-ln") return Variant::kFG;
  if (key == "preln" || key == "pre-ln") return Variant::kPreLN;
  throw std::invalid_argument("unknown variant '" + name + "' (expected FG or PreLN)");
}

Layout parse_layout(const std::string& name) {
  const std::string key = lower(name);
  if (key == "dlstudio") return Layout::kDLStudio;
  if (key == "positionwise") return Layout::kPositionwise;
  if (key == "vaswani") return Layout::kVaswani;
  throw std::invalid_argument("unknown layout '" + name + "' (expected dlstudio, positionwise or vaswani)");
}

}  // namespace dls

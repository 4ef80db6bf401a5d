// Small model configurations and inputs shared by the model tests.
#pragma once

#include <torch/torch.h>

#include "dls/models/seq2seq.h"

namespace dls::testing {

// M = 16, H = 4 (s = 4), L = 6, 2 encoders, 2 decoders, vocabularies of 23 and 29 words.
inline Seq2SeqConfig small_config(Variant variant, Layout layout, double dropout = 0.0) {
  Seq2SeqConfig config;
  config.transformer()
      .variant(variant)
      .layout(layout)
      .embedding_size(16)
      .num_heads(4)
      .max_seq_length(6)
      .ffn_multiplier(2)
      .dropout(dropout);
  config.num_encoders(2).num_decoders(2).src_vocab_size(23).tgt_vocab_size(29).pad_index(2);
  return config;
}

// One encoder or decoder block's config: M, H heads, L positions, every other size its
// default.
inline TransformerConfig block_config(Variant variant, Layout layout, std::int64_t embedding_size, std::int64_t heads,
                                      std::int64_t max_seq_length) {
  TransformerConfig config;
  config.variant(variant).layout(layout).embedding_size(embedding_size).num_heads(heads).max_seq_length(max_seq_length);
  return config;
}

// M = 16, H = 4 (s = 4), L = 6.
inline TransformerConfig block_config(Variant variant, Layout layout) {
  return block_config(variant, layout, 16, 4, 6);
}

// Random token ids in [3, vocab) of shape [batch, length] (no padding tokens).
inline torch::Tensor random_tokens(std::int64_t batch, std::int64_t length, std::int64_t vocab) {
  return torch::randint(3, vocab, {batch, length}, torch::kLong);
}

// [B, L] sources as decoding reads them: SOS (0), 1 to L-2 random words (row b has
// 1 + b % (L-2)), EOS (1), then padding (2).
inline torch::Tensor source_rows(std::int64_t batch, std::int64_t length, std::int64_t vocab) {
  auto src = torch::full({batch, length}, 2, torch::kLong);
  for (std::int64_t b = 0; b < batch; ++b) {
    const std::int64_t n = 1 + b % (length - 2);
    src[b][0] = 0;
    src[b].narrow(0, 1, n).copy_(random_tokens(1, n, vocab)[0]);
    src[b][n + 1] = 1;
  }
  return src;
}

struct VariantLayout {
  Variant variant;
  Layout layout;
};

inline const VariantLayout kAllVariantLayouts[] = {
    {Variant::kFG, Layout::kDLStudio},     {Variant::kPreLN, Layout::kDLStudio},
    {Variant::kFG, Layout::kPositionwise}, {Variant::kPreLN, Layout::kPositionwise},
    {Variant::kFG, Layout::kVaswani},      {Variant::kPreLN, Layout::kVaswani},
};

inline std::string name_of(const ::testing::TestParamInfo<VariantLayout>& info) {
  return to_string(info.param.variant) + "_" + to_string(info.param.layout);
}

}  // namespace dls::testing

#include "dls/layers/transformer_config.h"

#include <c10/util/Exception.h>

namespace dls {

void TransformerConfig::validate() const {
  TORCH_CHECK(embedding_size_ > 0 && num_heads_ > 0 && max_seq_length_ > 1,
              "embedding size, heads and max sequence length must be positive (L >= 2)");
  TORCH_CHECK(embedding_size_ % num_heads_ == 0, "embedding size M = ", embedding_size_,
              " is not divisible by the number of heads H = ", num_heads_);
  TORCH_CHECK(ffn_multiplier_ > 0, "ffn multiplier must be positive");
  TORCH_CHECK(dropout_ >= 0.0 && dropout_ < 1.0, "dropout must be in [0, 1), got ", dropout_);
}

}  // namespace dls

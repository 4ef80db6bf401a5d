// DLStudio's EmbeddingsGenerator: word embedding plus sinusoidal positional encoding.
#pragma once

#include <cstdint>

#include <torch/nn/module.h>
#include <torch/nn/modules/dropout.h>
#include <torch/nn/modules/embedding.h>
#include <torch/nn/pimpl.h>

#include "dls/layers/transformer_config.h"

namespace dls {

// PE[pos, 2i] = sin(pos / 10000^(2i/M)), PE[pos, 2i+1] = cos(pos / 10000^(2i/M)).
// DLStudio writes it with base 100 and exponent 2k/M (k the even column), the same numbers.
// Returns [length, M], float32, computed in double precision.
torch::Tensor sinusoidal_positional_encoding(std::int64_t length, std::int64_t embedding_size);

class EmbeddingsGeneratorImpl : public torch::nn::Module {
 public:
  EmbeddingsGeneratorImpl(std::int64_t vocab_size, const TransformerConfig& config);

  // tokens [B, T] int64 at positions offset .. offset+T-1 -> [B, T, M].
  // No sqrt(M) scaling, as DLStudio. Unlike DLStudio the embedding is trained.
  torch::Tensor forward(const torch::Tensor& tokens, std::int64_t offset = 0);

  torch::nn::Embedding embedding{nullptr};
  torch::nn::Dropout dropout{nullptr};

 private:
  torch::Tensor positional_encoding_;  // buffer [L, M]
};
TORCH_MODULE(EmbeddingsGenerator);

}  // namespace dls

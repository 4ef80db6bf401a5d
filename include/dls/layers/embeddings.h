// DLStudio's EmbeddingsGenerator: word embedding plus sinusoidal positional encoding.
#pragma once

#include <cstdint>

#include <torch/nn/module.h>
#include <torch/nn/modules/embedding.h>
#include <torch/nn/pimpl.h>

#include "dls/layers/dropout.h"
#include "dls/layers/transformer_config.h"

namespace dls {

// PE[pos, 2i] = sin(pos / 10000^(2i/M)), PE[pos, 2i+1] = cos(pos / 10000^(2i/M)).
// DLStudio writes it with base 100 and exponent 2k/M (k the even column), the same numbers.
// Returns rows first .. first+length-1: [length, M], float32, computed in double precision
// (so a row is the same whichever table it is part of).
torch::Tensor sinusoidal_positional_encoding(std::int64_t length, std::int64_t embedding_size, std::int64_t first = 0);

class EmbeddingsGeneratorImpl : public torch::nn::Module {
 public:
  EmbeddingsGeneratorImpl(std::int64_t vocab_size, const TransformerConfig& config);
  // Tied embeddings: reads `shared_table` [V, M], a parameter registered by its owner (the
  // decoder's output layer), and multiplies it by sqrt(M) as Vaswani et al. do: the table
  // is initialised N(0, 1/M) for the output layer, so its rows enter at unit scale.
  EmbeddingsGeneratorImpl(const torch::Tensor& shared_table, const TransformerConfig& config);

  // tokens [B, T] int64 at positions offset .. offset+T-1 -> [B, T, M].
  // No sqrt(M) scaling (own table), as DLStudio. Unlike DLStudio the embedding is trained.
  // Positions beyond the table's L: the layouts with per-position weights (positionwise,
  // vaswani) compute their rows by the same formula, so that a sentence longer than the
  // training length can be translated whole; the dlstudio layout, whose weights span
  // exactly L positions, refuses them.
  torch::Tensor forward(const torch::Tensor& tokens, std::int64_t offset = 0);

  torch::nn::Embedding embedding{nullptr};  // own table (nullptr when shared)
  Dropout dropout{nullptr};

 private:
  void register_rest(const TransformerConfig& config);  // dropout and positional encoding

  torch::Tensor positions(std::int64_t offset, std::int64_t length) const;  // [length, M]

  torch::Tensor positional_encoding_;  // buffer [L, M]
  bool extendable_ = false;            // positions beyond L computed (not the dlstudio layout)
  torch::Tensor shared_table_;         // [V, M], not registered here (undefined when own)
  double shared_scale_ = 1.0;
};
TORCH_MODULE(EmbeddingsGenerator);

}  // namespace dls

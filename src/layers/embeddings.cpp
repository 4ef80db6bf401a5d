#include "dls/layers/embeddings.h"

#include <algorithm>
#include <cmath>

#include <torch/torch.h>

namespace dls {

torch::Tensor sinusoidal_positional_encoding(std::int64_t length, std::int64_t embedding_size, std::int64_t first) {
  auto pe = torch::zeros({length, embedding_size}, torch::kFloat64);
  auto accessor = pe.accessor<double, 2>();
  for (std::int64_t row = 0; row < length; ++row) {
    const auto pos = static_cast<double>(first + row);
    for (std::int64_t col = 0; col < embedding_size; col += 2) {
      const double angle = pos / std::pow(10000.0, static_cast<double>(col) / embedding_size);
      accessor[row][col] = std::sin(angle);
      if (col + 1 < embedding_size) accessor[row][col + 1] = std::cos(angle);
    }
  }
  return pe.to(torch::kFloat32);
}

EmbeddingsGeneratorImpl::EmbeddingsGeneratorImpl(std::int64_t vocab_size, const TransformerConfig& config) {
  config.validate();
  TORCH_CHECK(vocab_size > 0, "vocabulary size must be positive");
  embedding = register_module("embedding", torch::nn::Embedding(vocab_size, config.embedding_size()));
  register_rest(config);
}

EmbeddingsGeneratorImpl::EmbeddingsGeneratorImpl(const torch::Tensor& shared_table, const TransformerConfig& config)
    : shared_table_(shared_table), shared_scale_(std::sqrt(static_cast<double>(config.embedding_size()))) {
  config.validate();
  TORCH_CHECK(shared_table.dim() == 2 && shared_table.size(1) == config.embedding_size(),
              "a shared embedding table must be [V, M]");
  register_rest(config);
}

void EmbeddingsGeneratorImpl::register_rest(const TransformerConfig& config) {
  const double p = config.effective_dropout();
  dropout = register_module("dropout", Dropout(p));
  extendable_ = !config.flattened();
  positional_encoding_ = register_buffer(
      "positional_encoding", sinusoidal_positional_encoding(config.max_seq_length(), config.embedding_size()));
}

torch::Tensor EmbeddingsGeneratorImpl::forward(const torch::Tensor& tokens, std::int64_t offset) {
  TORCH_CHECK(tokens.dim() == 2, "tokens must be [B, T]");
  const auto embedded = embedding ? embedding(tokens) : torch::embedding(shared_table_, tokens) * shared_scale_;
  // [B, T, M] + [1, T, M]
  return dropout(embedded + positions(offset, tokens.size(1)).unsqueeze(0));
}

torch::Tensor EmbeddingsGeneratorImpl::positions(std::int64_t offset, std::int64_t length) const {
  const std::int64_t table = positional_encoding_.size(0);
  TORCH_CHECK(offset >= 0 && (extendable_ || offset + length <= table), "positions ", offset, "..", offset + length - 1,
              " exceed the max sequence length ", table);
  if (offset + length <= table) return positional_encoding_.narrow(0, offset, length);
  // Rows past the table: the same formula, computed for these positions only (a decoding
  // step past L asks for one row).
  const auto past = sinusoidal_positional_encoding(offset + length - std::max(offset, table),
                                                   positional_encoding_.size(1), std::max(offset, table))
                        .to(positional_encoding_.options());
  if (offset >= table) return past;
  return torch::cat({positional_encoding_.narrow(0, offset, table - offset), past});
}

}  // namespace dls

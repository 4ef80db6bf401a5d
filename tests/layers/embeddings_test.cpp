#include "dls/layers/embeddings.h"

#include <gtest/gtest.h>

#include <cmath>

#include <torch/torch.h>

namespace dls {
namespace {

TEST(PositionalEncoding, MatchesDLStudiosBase100Formula) {
  // DLStudio: PE[pos, k] = sin(pos / 100^(2k/M)) for even k, cos(pos / 100^(2k/M))
  // at k+1 -- with k the even column, 100^(2k/M) = 10000^(k/M).
  const std::int64_t length = 10, dim = 8;
  const auto pe = sinusoidal_positional_encoding(length, dim);
  ASSERT_EQ(pe.sizes(), torch::IntArrayRef({length, dim}));
  for (std::int64_t pos = 0; pos < length; ++pos) {
    for (std::int64_t k = 0; k < dim; k += 2) {
      const double denominator = std::pow(100.0, 2.0 * k / dim);
      EXPECT_NEAR(pe[pos][k].item<float>(), std::sin(pos / denominator), 1e-6);
      EXPECT_NEAR(pe[pos][k + 1].item<float>(), std::cos(pos / denominator), 1e-6);
    }
  }
}

TEST(EmbeddingsGenerator, AddsTheEncodingAtTheRightOffset) {
  TransformerConfig config;
  config.embedding_size(8).num_heads(2).max_seq_length(5);
  EmbeddingsGenerator generator(11, config);
  const auto tokens = torch::tensor({{3, 4, 5}}, torch::kLong);
  const auto pe = sinusoidal_positional_encoding(5, 8);
  const auto at0 = generator(tokens);
  const auto at2 = generator(tokens, 2);
  ASSERT_EQ(at0.sizes(), torch::IntArrayRef({1, 3, 8}));
  const auto words = generator->embedding(tokens);
  EXPECT_TRUE(torch::allclose(at0, words + pe.narrow(0, 0, 3)));
  EXPECT_TRUE(torch::allclose(at2, words + pe.narrow(0, 2, 3)));
  EXPECT_THROW(generator(tokens, 3), c10::Error);
}

// Layouts with per-position weights read past L (a sentence longer than the training
// length, translated whole): the rows past the table are the formula's; the table is not
// changed (nor what a checkpoint saves). The dlstudio layout's weights span L: it refuses.
TEST(EmbeddingsGenerator, PositionsPastLFollowTheFormulaOutsideTheDLStudioLayout) {
  const auto pe = sinusoidal_positional_encoding(9, 8);
  EXPECT_TRUE(torch::equal(sinusoidal_positional_encoding(4, 8, 5), pe.narrow(0, 5, 4)));
  for (const auto layout : {Layout::kPositionwise, Layout::kVaswani}) {
    TransformerConfig config;
    config.layout(layout).embedding_size(8).num_heads(2).max_seq_length(5);
    EmbeddingsGenerator generator(11, config);
    const auto tokens = torch::tensor({{3, 4, 5}}, torch::kLong);
    const auto words = generator->embedding(tokens);
    EXPECT_TRUE(torch::allclose(generator(tokens, 3), words + pe.narrow(0, 3, 3)));  // across the end of the table
    EXPECT_TRUE(torch::allclose(generator(tokens, 6), words + pe.narrow(0, 6, 3)));  // all past it
    const auto long_tokens = torch::tensor({{3, 4, 5, 6, 7, 8, 9, 10, 3}}, torch::kLong);
    EXPECT_TRUE(torch::allclose(generator(long_tokens), generator->embedding(long_tokens) + pe));
    EXPECT_EQ(generator->named_buffers()["positional_encoding"].size(0), 5);
  }
}

TEST(EmbeddingsGenerator, EmbeddingIsTrainable) {
  TransformerConfig config;
  config.embedding_size(8).num_heads(2).max_seq_length(5);
  EmbeddingsGenerator generator(11, config);
  const auto parameters = generator->named_parameters();
  ASSERT_TRUE(parameters.contains("embedding.weight"));
  EXPECT_TRUE(parameters["embedding.weight"].requires_grad());
  // The positional encoding is a buffer, not a parameter.
  EXPECT_EQ(parameters.size(), 1u);
  EXPECT_TRUE(generator->named_buffers().contains("positional_encoding"));
}

}  // namespace
}  // namespace dls

// The decoding tests' fixture (an untrained small model in each variant and layout, and
// sources for it) and their options.
#pragma once

#include <cstdint>

#include <gtest/gtest.h>
#include <torch/torch.h>

#include "dls/eval/decoding.h"
#include "support/small_models.h"

namespace dls::testing {

// Beam search with `beam_size` beams, every other option its default.
inline eval::DecodeOptions beam_options(std::int64_t beam_size) {
  eval::DecodeOptions options;
  options.method = eval::DecodeMethod::kBeam;
  options.beam_size = beam_size;
  return options;
}

// small_config's model (dropout 0, eval mode) from torch::manual_seed(Seed), and `Rows`
// source rows of L = 6 (source_rows) drawn right after it.
template <std::uint64_t Seed, std::int64_t Rows>
class UntrainedSmallModel : public ::testing::TestWithParam<VariantLayout> {
 protected:
  void SetUp() override {
    torch::manual_seed(Seed);
    model_ = Seq2SeqTransformer(small_config(GetParam().variant, GetParam().layout));
    model_->eval();
    src_ = source_rows(Rows, 6, 23);
  }
  Seq2SeqTransformer model_{nullptr};
  torch::Tensor src_;  // [Rows, 6]
};

}  // namespace dls::testing

// A training step's loss share (model_loss_share) on a static-shape batch: fully masked rows
// added to reach a fixed row count, and with length buckets pad columns up to a fixed width,
// must give the same loss and the same gradient of every parameter as the batch without
// them, for both kinds of padding (<pad> with the standard loss, EOS with DLStudio's) and
// with label smoothing; the loss over every output row (static shapes) equals the one over
// the rows of counted targets.
#include "dls/models/seq2seq_loss.h"

#include <gtest/gtest.h>

#include <torch/torch.h>

#include "dls/data/length_buckets.h"
#include "dls/data/vocabulary.h"
#include "support/seq2seq_batches.h"
#include "support/small_models.h"

namespace dls {
namespace {

using data::Vocabulary;

using testing::loss_and_gradients;
using testing::LossAndGradients;
using testing::padded_sentences;

void expect_same_loss_and_gradients(const LossAndGradients& a, const LossAndGradients& b, const std::string& what) {
  EXPECT_NEAR(a.loss, b.loss, 1e-6 * std::abs(b.loss)) << what;
  ASSERT_EQ(a.gradients.size(), b.gradients.size());
  for (std::size_t i = 0; i < a.gradients.size(); ++i) {
    EXPECT_TRUE(torch::allclose(a.gradients[i], b.gradients[i], 1e-5, 1e-6))
        << what << ": parameter " << i << " differs by "
        << (a.gradients[i] - b.gradients[i]).abs().max().item<double>();
  }
}

struct StaticCase {
  Layout layout;
  bool dlstudio_loss;
  double label_smoothing;
};

TEST(StaticShapeBatch, MaskedRowsAndColumnsChangeNeitherLossNorGradients) {
  const StaticCase cases[] = {
      {Layout::kVaswani, false, 0.0},       // <pad> padding, masked attention
      {Layout::kVaswani, false, 0.1},       // label smoothing
      {Layout::kVaswani, true, 0.0},        // DLStudio's loss: EOS padding
      {Layout::kDLStudio, true, 0.0},       // DLStudio's layout and loss
      {Layout::kPositionwise, false, 0.1},  // no masking in the model: only the loss ignores <pad>
  };
  for (const auto& c : cases) {
    for (const auto variant : {Variant::kFG, Variant::kPreLN}) {
      const std::string what = to_string(variant) + " " + to_string(c.layout) + (c.dlstudio_loss ? " dlstudio" : "") +
                               " smoothing " + std::to_string(c.label_smoothing);
      torch::manual_seed(11);
      auto config = testing::small_config(variant, c.layout);
      const std::int64_t L = 10;
      config.transformer().max_seq_length(L);
      config.pad_index(Vocabulary::kPad);
      Seq2SeqTransformer model(config);
      const auto padding = c.dlstudio_loss ? Vocabulary::kEos : Vocabulary::kPad;
      LossOptions options;
      options.dlstudio = c.dlstudio_loss;
      options.label_smoothing = c.label_smoothing;
      // Three pairs at full width L (the batch a short last batch would be).
      const auto src = padded_sentences({3, 5, 2}, L, config.src_vocab_size(), padding);
      const auto tgt = padded_sentences({4, 2, 6}, L, config.tgt_vocab_size(), padding);
      const auto plain = loss_and_gradients(model, src, tgt, options, tgt);
      // Padded to 8 rows with masked ones; the loss over every output row, masked.
      auto fixed = options;
      fixed.all_output_rows = true;
      const auto [src8, tgt8] = data::pad_rows_masked(src, tgt, 8, src[0], tgt[0], Vocabulary::kPad);
      ASSERT_EQ(src8.size(0), 8);
      expect_same_loss_and_gradients(loss_and_gradients(model, src8, tgt8, fixed, tgt), plain, what + ", rows");
      // The same without all_output_rows (masked rows on the CPU's path).
      expect_same_loss_and_gradients(loss_and_gradients(model, src8, tgt8, options, tgt), plain,
                                     what + ", rows, picked");
      if (c.layout != Layout::kVaswani || c.dlstudio_loss) continue;
      // Length buckets (vaswani, <pad>): cut to the used columns (8), padded to a static width.
      const auto used = std::max(data::used_columns(src, Vocabulary::kPad), data::used_columns(tgt, Vocabulary::kPad));
      ASSERT_EQ(used, 8);
      const auto cut = loss_and_gradients(model, src.narrow(1, 0, used), tgt.narrow(1, 0, used), options, tgt);
      expect_same_loss_and_gradients(cut, plain, what + ", cut");
      for (const std::int64_t width : {std::int64_t{9}, L}) {
        const auto [s, t] =
            data::pad_rows_masked(src.narrow(1, 0, width), tgt.narrow(1, 0, width), 5, src[1].narrow(0, 0, width),
                                  tgt[1].narrow(0, 0, width), Vocabulary::kPad);
        expect_same_loss_and_gradients(loss_and_gradients(model, s, t, fixed, tgt), cut,
                                       what + ", width " + std::to_string(width));
      }
    }
  }
}

TEST(StaticShapeBatch, ChunkSharesOfAPaddedBatchAddUpToItsLoss) {
  // The trainer's chunks cut a padded batch anywhere, also inside the masked rows: each
  // chunk's share over the whole batch's denominators, and the shares add up.
  torch::manual_seed(3);
  auto config = testing::small_config(Variant::kPreLN, Layout::kVaswani);
  config.transformer().max_seq_length(8);
  config.pad_index(Vocabulary::kPad);
  Seq2SeqTransformer model(config);
  const auto src = padded_sentences({3, 5, 2, 1, 4}, 8, config.src_vocab_size(), Vocabulary::kPad);
  const auto tgt = padded_sentences({4, 2, 6, 3, 1}, 8, config.tgt_vocab_size(), Vocabulary::kPad);
  LossOptions options;
  options.label_smoothing = 0.1;
  options.all_output_rows = true;
  const auto batch = loss_denominators(tgt.narrow(1, 1, 7), options);
  const auto [src8, tgt8] = data::pad_rows_masked(src, tgt, 8, src[0], tgt[0], Vocabulary::kPad);
  torch::NoGradGuard no_grad;
  const double whole = model_loss_share(model, src8, tgt8, options, batch).item<double>();
  double sum = 0;
  for (const auto& [begin, end] : {std::pair{0, 3}, std::pair{3, 6}, std::pair{6, 8}}) {
    sum += model_loss_share(model, src8.slice(0, begin, end), tgt8.slice(0, begin, end), options, batch).item<double>();
  }
  EXPECT_NEAR(sum, whole, 1e-6 * whole);
  // The last chunk holds only masked rows: its share is 0.
  EXPECT_EQ(model_loss_share(model, src8.slice(0, 6, 8), tgt8.slice(0, 6, 8), options, batch).item<double>(), 0.0);
}

}  // namespace
}  // namespace dls

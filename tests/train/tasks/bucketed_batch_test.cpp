// Length buckets cut a batch [B, L] to its own longest sentence [B, l]. The vaswani layout
// masks padding, so the cut batch must train exactly as the batch padded to L: the same
// per-token loss and the same gradients.
#include <gtest/gtest.h>

#include <torch/torch.h>

#include "dls/data/length_buckets.h"
#include "dls/data/vocabulary.h"
#include "dls/models/seq2seq_loss.h"
#include "support/seq2seq_batches.h"
#include "support/small_models.h"

namespace dls {
namespace {

using data::Vocabulary;

using testing::loss_and_gradients;
using testing::padded_sentences;

TEST(BucketedBatch, CutToItsLongestSentenceTrainsAsPaddedToL) {
  for (const auto variant : {Variant::kFG, Variant::kPreLN}) {
    torch::manual_seed(5);
    auto config = testing::small_config(variant, Layout::kVaswani);
    config.transformer().max_seq_length(12);
    config.pad_index(Vocabulary::kPad);
    Seq2SeqTransformer model(config);
    const auto src = padded_sentences({3, 5, 2, 4}, 12, config.src_vocab_size());
    const auto tgt = padded_sentences({4, 2, 6, 3}, 12, config.tgt_vocab_size());
    const auto src_width = data::used_columns(src, Vocabulary::kPad);
    const auto tgt_width = data::used_columns(tgt, Vocabulary::kPad);
    ASSERT_EQ(src_width, 7);  // SOS + 5 words + EOS
    ASSERT_EQ(tgt_width, 8);
    LossOptions options;
    options.label_smoothing = 0.1;
    const auto padded = loss_and_gradients(model, src, tgt, options);
    const auto cut = loss_and_gradients(model, src.narrow(1, 0, src_width), tgt.narrow(1, 0, tgt_width), options);
    EXPECT_NEAR(cut.loss, padded.loss, 1e-5 * padded.loss) << to_string(variant);
    ASSERT_EQ(cut.gradients.size(), padded.gradients.size());
    for (std::size_t i = 0; i < cut.gradients.size(); ++i) {
      EXPECT_TRUE(torch::allclose(cut.gradients[i], padded.gradients[i], 1e-4, 1e-6))
          << to_string(variant) << " parameter " << i << " differs by "
          << (cut.gradients[i] - padded.gradients[i]).abs().max().item<double>();
    }
  }
}

}  // namespace
}  // namespace dls

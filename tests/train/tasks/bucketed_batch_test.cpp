// Length buckets cut a batch [B, L] to its own longest sentence [B, l]. The vaswani layout
// masks padding, so the cut batch must train exactly as the batch padded to L: the same
// per-token loss and the same gradients.
#include <gtest/gtest.h>

#include <torch/torch.h>

#include "dls/data/length_buckets.h"
#include "dls/data/vocabulary.h"
#include "dls/models/seq2seq_loss.h"
#include "support/small_models.h"

namespace dls {
namespace {

using data::Vocabulary;

// SOS, `length` words in [4, vocab), EOS, then padding to `width`: one row per length.
torch::Tensor padded_sentences(const std::vector<std::int64_t>& lengths, std::int64_t width, std::int64_t vocab) {
  auto rows = torch::full({static_cast<std::int64_t>(lengths.size()), width}, Vocabulary::kPad, torch::kLong);
  for (std::size_t i = 0; i < lengths.size(); ++i) {
    const auto row = static_cast<std::int64_t>(i);
    rows[row][0] = Vocabulary::kSos;
    rows[row].narrow(0, 1, lengths[i]).copy_(torch::randint(4, vocab, {lengths[i]}, torch::kLong));
    rows[row][lengths[i] + 1] = Vocabulary::kEos;
  }
  return rows;
}

struct LossAndGradients {
  double loss = 0;
  std::vector<torch::Tensor> gradients;
};

LossAndGradients loss_of(Seq2SeqTransformer& model, const torch::Tensor& src, const torch::Tensor& tgt,
                         const LossOptions& options) {
  model->zero_grad();
  const auto targets = tgt.narrow(1, 1, tgt.size(1) - 1);
  const auto loss = model_loss_share(model, src, tgt, options, loss_denominators(targets, options));
  loss.backward();
  LossAndGradients out{loss.item<double>(), {}};
  for (const auto& p : model->parameters()) out.gradients.push_back(p.grad().clone());
  return out;
}

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
    const auto padded = loss_of(model, src, tgt, options);
    const auto cut = loss_of(model, src.narrow(1, 0, src_width), tgt.narrow(1, 0, tgt_width), options);
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

#include "dls/models/sequence_loss.h"

#include <gtest/gtest.h>

#include <cmath>

#include <torch/torch.h>

#include "dls/models/seq2seq.h"
#include "support/small_models.h"

namespace dls {
namespace {

using torch::indexing::Slice;

// Targets with padding (pad_index 2) in some rows and one row that is all padding.
torch::Tensor padded_targets() {
  auto tgt = testing::random_tokens(7, 6, 29);
  tgt.index_put_({Slice(0, 3), Slice(3, 6)}, 2);
  tgt.index_put_({4, Slice(1, 6)}, 2);
  return tgt;
}

std::vector<torch::Tensor> gradients_of(Seq2SeqTransformer& model, const torch::Tensor& loss) {
  for (auto& p : model->parameters()) p.mutable_grad() = torch::Tensor();
  loss.backward();
  std::vector<torch::Tensor> grads;
  for (const auto& p : model->parameters()) {
    grads.push_back(p.grad().defined() ? p.grad().clone() : torch::zeros_like(p));
  }
  return grads;
}

class LossFromStates : public ::testing::TestWithParam<testing::VariantLayout> {};

// Only the real target tokens' rows go through the output layer: the loss and every
// parameter's gradient equal those of the full log-probabilities, for DLStudio's loss, the
// plain token mean and the label-smoothed one.
TEST_P(LossFromStates, EqualsTheLossOfTheFullLogProbabilities) {
  torch::manual_seed(11);
  Seq2SeqTransformer model(testing::small_config(GetParam().variant, GetParam().layout));
  const auto src = testing::random_tokens(7, 6, 23);
  const auto tgt = padded_targets();
  const auto targets = tgt.narrow(1, 1, 5);
  for (const double smoothing : {-1.0, 0.0, 0.1}) {  // -1: DLStudio's loss
    LossOptions options;
    options.dlstudio = smoothing < 0;
    options.label_smoothing = std::max(smoothing, 0.0);
    options.pad_index = 2;
    const auto full = sequence_loss(model(src, tgt), targets, options);
    const auto packed =
        sequence_loss_from_states(*model->master_decoder, model->final_states(src, tgt), targets, options);
    EXPECT_NEAR(packed.item<double>(), full.item<double>(), 1e-6) << "smoothing " << smoothing;
    const auto expected = gradients_of(model, full);
    const auto got = gradients_of(model, packed);
    for (std::size_t i = 0; i < got.size(); ++i) {
      EXPECT_TRUE(torch::allclose(got[i], expected[i], 1e-4, 1e-7))
          << "smoothing " << smoothing << ", parameter " << i << ": max difference "
          << (got[i] - expected[i]).abs().max().item<double>();
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AllVariants, LossFromStates, ::testing::ValuesIn(testing::kAllVariantLayouts),
                         testing::name_of);

// forward() is the log-softmax of the output layer over final_states().
TEST(LossFromStates, ForwardIsTheOutputLayerOverTheFinalStates) {
  torch::manual_seed(12);
  for (const auto& vl : testing::kAllVariantLayouts) {
    Seq2SeqTransformer model(testing::small_config(vl.variant, vl.layout));
    model->eval();
    const auto src = testing::random_tokens(3, 6, 23);
    const auto tgt = padded_targets().narrow(0, 0, 3);
    const auto states = model->final_states(src, tgt);
    ASSERT_EQ(states.sizes(), (std::vector<std::int64_t>{3, 5, 16}));
    EXPECT_TRUE(torch::allclose(model(src, tgt), torch::log_softmax(model->master_decoder->out(states), -1)));
  }
}

// A batch without any real target token has loss 0 and zero gradients, as sequence_loss.
TEST(LossFromStates, AllPaddingGivesZero) {
  torch::manual_seed(13);
  Seq2SeqTransformer model(testing::small_config(Variant::kFG, Layout::kVaswani));
  const auto src = testing::random_tokens(2, 6, 23);
  auto tgt = torch::full({2, 6}, 2, torch::kLong);
  tgt.select(1, 0).fill_(0);
  LossOptions options;
  options.pad_index = 2;
  const auto targets = tgt.narrow(1, 1, 5);
  const auto loss = sequence_loss_from_states(*model->master_decoder, model->final_states(src, tgt), targets, options);
  EXPECT_EQ(loss.item<double>(), 0.0);
  EXPECT_EQ(sequence_loss(model(src, tgt), targets, options).item<double>(), 0.0);
  for (const auto& g : gradients_of(model, loss)) EXPECT_EQ(g.abs().max().item<double>(), 0.0);
}

// A model with DLStudio's outputs (<pad>, <unk> out of the softmax): DLStudio's loss, from
// the states as from the log-probabilities and over every output row (static shapes) too,
// is the NLL over DLStudio's words, finite although <unk> (a validation word unseen in
// training) and <pad> (a static-shape batch's masked rows) targets score -inf: they count
// nowhere. The gradients are finite, and 0 for the <pad>/<unk> rows of the output layer.
TEST(LossFromStates, DLStudioOutputsCountNoUnknownTargetAndStayFinite) {
  torch::manual_seed(14);
  for (const auto layout : {Layout::kDLStudio, Layout::kVaswani}) {
    SCOPED_TRACE(to_string(layout));
    Seq2SeqTransformer model(testing::small_config(Variant::kFG, layout).dlstudio_outputs(true));
    const auto src = testing::random_tokens(7, 6, 23);
    auto tgt = padded_targets();  // <pad> in rows 0-2 and all of row 4
    tgt.index_put_({5, 2}, data::Vocabulary::kUnk);
    tgt.index_put_({6, 4}, data::Vocabulary::kUnk);
    const auto targets = tgt.narrow(1, 1, 5);
    LossOptions options;
    options.dlstudio = true;
    const auto log_probs = model(src, tgt);  // [7, 5, 29]
    // By hand: -log p of each counted target, summed, over the 7 rows.
    const auto counted = targets.ge(4).logical_or(targets.lt(2));
    const auto nll = -log_probs.gather(2, targets.unsqueeze(2)).squeeze(2);
    const double expected = torch::where(counted, nll, torch::zeros_like(nll)).sum().item<double>() / 7.0;
    ASSERT_TRUE(std::isfinite(expected));
    auto with_unknown = options;
    with_unknown.never_predicted = {data::Vocabulary::kPad, data::Vocabulary::kUnk};
    EXPECT_NEAR(sequence_loss(log_probs, targets, with_unknown).item<double>(), expected, 1e-5);
    const auto states = model->final_states(src, tgt);
    const auto from_states = sequence_loss_from_states(*model->master_decoder, states, targets, options);
    EXPECT_NEAR(from_states.item<double>(), expected, 1e-5);
    auto all_rows = options;
    all_rows.all_output_rows = true;
    const auto sum = sequence_loss_sum_from_states(*model->master_decoder, states, targets, all_rows);
    EXPECT_NEAR(sum.item<double>() / 7.0, expected, 1e-5);
    const auto grads = gradients_of(model, from_states);
    for (const auto& g : grads) EXPECT_TRUE(torch::isfinite(g).all().item<bool>());
    EXPECT_EQ(model->master_decoder->out->weight.grad().narrow(0, 2, 2).abs().max().item<double>(), 0.0);
    EXPECT_GT(model->master_decoder->out->weight.grad().narrow(0, 4, 25).abs().max().item<double>(), 0.0);
    // Label smoothing would average -inf columns in: refused, not a silent inf.
    auto smoothed = options;
    smoothed.dlstudio = false;
    smoothed.label_smoothing = 0.1;
    EXPECT_THROW(sequence_loss_from_states(*model->master_decoder, states, targets, smoothed), c10::Error);
  }
}

}  // namespace
}  // namespace dls

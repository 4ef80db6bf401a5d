#include "dls/train/parallel/split_batch.h"

#include <gtest/gtest.h>

#include <stdexcept>

#include <torch/torch.h>

#include "dls/checkpoint/vit_checkpoint.h"
#include "dls/layers/dropout.h"
#include "dls/models/seq2seq_loss.h"
#include "dls/models/vit.h"
#include "dls/train/tasks/vit_trainer.h"
#include "support/small_models.h"
#include "support/vit_runs.h"
#include "util/temp_files.h"

namespace dls::train {
namespace {

using checkpoint::CheckpointReader;
using checkpoint::kViTCheckpointKind;
using checkpoint::load_vit_model;
using checkpoint::read_vit_contents;

// A small pre-LN ViT without dropout, so that every pass is a deterministic function.
visTransformer deterministic_vit() {
  torch::manual_seed(5);
  ViTConfig config;
  config.transformer()
      .variant(Variant::kPreLN)
      .layout(Layout::kVaswani)
      .embedding_size(16)
      .num_heads(2)
      .ffn_multiplier(2)
      .dropout(0.0);
  config.image_size(28)
      .channels(1)
      .patch_size(7)
      .num_encoders(2)
      .num_classes(10)
      .head_hidden_size(24)
      .head_dropout(0.0)
      .stem({StemConv{3, 1}, StemConv{4, 2}});
  return visTransformer(config);
}

ChunkLossFn mean_cross_entropy(visTransformer& model, std::int64_t batch) {
  return [&model, batch](const torch::Tensor& x, const torch::Tensor& y, torch::Tensor* logits) {
    *logits = model(x);
    const auto loss = torch::nn::functional::cross_entropy(
        *logits, y, torch::nn::functional::CrossEntropyFuncOptions().label_smoothing(0.1));
    return loss * (static_cast<double>(x.size(0)) / static_cast<double>(batch));
  };
}

std::vector<torch::Tensor> gradients(const visTransformer& model) {
  std::vector<torch::Tensor> out;
  for (const auto& p : model->parameters()) out.push_back(p.grad().clone());
  return out;
}

// The fast path (chunks on threads) equals the plain loop (one pass, loss.backward()) in
// loss, outputs and every parameter's gradient, for even and uneven chunk sizes.
TEST(SplitForwardBackward, ChunkedGradientEqualsOnePass) {
  auto model = deterministic_vit();
  const auto images = torch::randn({11, 1, 28, 28});
  const auto labels = torch::randint(0, 10, {11}, torch::kLong);
  const auto loss_fn = mean_cross_entropy(model, 11);

  const auto plain = split_forward_backward(model->parameters(), images, labels, 1, loss_fn);
  const auto expected = gradients(model);
  for (const int chunks : {2, 3, 11, 40}) {  // 40 > batch: one image per chunk
    const auto split = split_forward_backward(model->parameters(), images, labels, chunks, loss_fn);
    EXPECT_NEAR(split.loss, plain.loss, 1e-6) << chunks;
    EXPECT_TRUE(torch::allclose(split.outputs, plain.outputs, 1e-5, 1e-6)) << chunks;
    const auto got = gradients(model);
    ASSERT_EQ(got.size(), expected.size());
    for (std::size_t i = 0; i < got.size(); ++i) {
      EXPECT_TRUE(torch::allclose(got[i], expected[i], 1e-4, 1e-6))
          << chunks << " chunks, parameter " << i << ": max difference "
          << (got[i] - expected[i]).abs().max().item<double>();
    }
  }
}

// With dropout, chunks on threads draw their masks from streams of their own: the same
// seed gives the same gradients however the threads ran (they shared the default generator,
// reached in the threads' order: the same command gave other losses).
TEST(SplitForwardBackward, ChunksWithDropoutGiveTheSameGradientsEveryTime) {
  auto model = deterministic_vit();
  model->train();
  for (auto& module : model->modules(/*include_self=*/false)) {
    if (auto* dropout = module->as<DropoutImpl>()) dropout->options.p(0.3);
  }
  const auto images = torch::randn({12, 1, 28, 28});
  const auto labels = torch::randint(0, 10, {12}, torch::kLong);
  const auto loss_fn = mean_cross_entropy(model, 12);
  std::vector<torch::Tensor> first;
  for (int run = 0; run < 6; ++run) {
    torch::manual_seed(21);
    const auto step = split_forward_backward(model->parameters(), images, labels, 4, loss_fn);
    const auto got = gradients(model);
    if (run == 0) {
      first = got;
      continue;
    }
    for (std::size_t i = 0; i < got.size(); ++i) ASSERT_TRUE(torch::equal(got[i], first[i])) << "run " << run;
  }
  torch::manual_seed(22);
  split_forward_backward(model->parameters(), images, labels, 4, loss_fn);
  bool differs = false;
  for (std::size_t i = 0; i < first.size(); ++i) differs |= !torch::equal(gradients(model)[i], first[i]);
  EXPECT_TRUE(differs) << "another seed, other masks: the dropout is on";
}

// Seq2seq: the chunks' loss shares add up to the batch loss (DLStudio's row mean and the
// standard token mean with padding and label smoothing), and the chunked gradient equals
// the plain one, in every variant and layout.
class SplitSeq2Seq : public ::testing::TestWithParam<testing::VariantLayout> {};

TEST_P(SplitSeq2Seq, ChunkedGradientEqualsOnePass) {
  torch::manual_seed(3);
  Seq2SeqTransformer model(testing::small_config(GetParam().variant, GetParam().layout));
  const auto src = testing::random_tokens(7, 6, 23);
  auto tgt = testing::random_tokens(7, 6, 29);
  tgt.index_put_({torch::indexing::Slice(0, 3), torch::indexing::Slice(3, 6)}, 2);  // padding (pad_index 2)
  tgt.index_put_({4, torch::indexing::Slice(1, 6)}, 2);                             // a row with no real target at all
  for (const bool dlstudio : {true, false}) {
    LossOptions options;
    options.dlstudio = dlstudio;
    options.label_smoothing = dlstudio ? 0.0 : 0.1;
    options.pad_index = 2;
    const auto targets = tgt.narrow(1, 1, 5);
    const auto denominators = loss_denominators(targets, options);
    const auto loss_fn = [&](const torch::Tensor& s, const torch::Tensor& t, torch::Tensor*) {
      return model_loss_share(model, s, t, options, denominators);  // as the trainer
    };
    const auto whole = sequence_loss(model(src, tgt), targets, options).item<double>();
    const auto plain = split_forward_backward(model->parameters(), src, tgt, 1, loss_fn);
    EXPECT_NEAR(plain.loss, whole, 1e-6);
    std::vector<torch::Tensor> expected;
    for (const auto& p : model->parameters()) expected.push_back(p.grad().clone());
    for (const int chunks : {2, 3}) {
      const auto split = split_forward_backward(model->parameters(), src, tgt, chunks, loss_fn);
      EXPECT_NEAR(split.loss, whole, 1e-5) << chunks << " chunks, dlstudio loss " << dlstudio;
      const auto params = model->parameters();
      for (std::size_t i = 0; i < params.size(); ++i) {
        EXPECT_TRUE(torch::allclose(params[i].grad(), expected[i], 1e-4, 1e-6))
            << chunks << " chunks, dlstudio loss " << dlstudio << ", parameter " << i;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AllVariants, SplitSeq2Seq, ::testing::ValuesIn(testing::kAllVariantLayouts), testing::name_of);

// Gradients replace, not accumulate: two identical steps leave the same gradient, and a
// parameter the loss never reaches gets zeros rather than a stale value.
TEST(SplitForwardBackward, GradientsAreReplacedEachStep) {
  auto model = deterministic_vit();
  const auto images = torch::randn({6, 1, 28, 28});
  const auto labels = torch::randint(0, 10, {6}, torch::kLong);
  auto unused = torch::ones({3}, torch::requires_grad());
  unused.mutable_grad() = torch::full({3}, 7.0);
  auto parameters = model->parameters();
  parameters.push_back(unused);
  const auto loss_fn = mean_cross_entropy(model, 6);
  split_forward_backward(parameters, images, labels, 2, loss_fn);
  const auto first = gradients(model);
  split_forward_backward(parameters, images, labels, 2, loss_fn);
  const auto second = gradients(model);
  for (std::size_t i = 0; i < first.size(); ++i) EXPECT_TRUE(torch::equal(first[i], second[i])) << i;
  EXPECT_TRUE(torch::equal(unused.grad(), torch::zeros({3})));
}

TEST(SplitForwardBackward, AnErrorInAChunkReachesTheCaller) {
  auto model = deterministic_vit();
  const auto images = torch::randn({4, 1, 28, 28});
  const auto labels = torch::randint(0, 10, {4}, torch::kLong);
  const ChunkLossFn failing = [](const torch::Tensor& x, const torch::Tensor&, torch::Tensor*) -> torch::Tensor {
    if (x.size(0) > 0) throw std::runtime_error("chunk failed");
    return {};
  };
  EXPECT_THROW(split_forward_backward(model->parameters(), images, labels, 2, failing), std::runtime_error);
  // The intra-op thread count of the caller is what it was.
  EXPECT_GT(torch::get_num_threads(), 0);
}

// Training with two workers follows the one-worker run: the same data order and updates,
// weights equal up to rounding after a dozen steps.
TEST(SplitForwardBackward, TrainingWithWorkersFollowsThePlainRun) {
  const auto data = test::tiny_fashion_dir("split_batch_train");
  auto settings = test::tiny_vit_settings(data);
  settings.model.transformer().dropout(0.0);
  settings.model.head_dropout(0.0);
  settings.data.augment.pad = 0;
  settings.data.augment.flip = false;
  const auto plain_dir = test::fresh_temp_dir("split_batch_plain");
  const auto plain = test::train_vit_with(settings, test::tiny_vit_run(plain_dir));
  const auto workers_dir = test::fresh_temp_dir("split_batch_workers");
  auto control = test::tiny_vit_run(workers_dir);
  control.workers = 2;
  const auto split = test::train_vit_with(settings, control);
  EXPECT_EQ(split.iterations, plain.iterations);
  EXPECT_NEAR(split.final_loss, plain.final_loss, 1e-4);
  ASSERT_FALSE(plain.checkpoints.empty());
  ASSERT_FALSE(split.checkpoints.empty());
  const auto weights = [](const std::string& path) {
    const CheckpointReader reader(path, kViTCheckpointKind);
    return load_vit_model(reader, read_vit_contents(reader).settings)->named_parameters();
  };
  const auto a = weights(plain.checkpoints.back()), b = weights(split.checkpoints.back());
  for (const auto& item : a) {
    // 12 AdamW steps of at most lr = 1.5e-3 each: rounding may move a weight by a step or
    // two where a gradient is near zero, a wrong gradient moves many by far more.
    EXPECT_TRUE(torch::allclose(item.value(), b[item.key()], 0.0, 5e-3)) << item.key();
  }
}

}  // namespace
}  // namespace dls::train

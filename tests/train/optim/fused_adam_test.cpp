#include "dls/train/optim/fused_adam.h"

#include <gtest/gtest.h>

#include <sstream>

#include <torch/torch.h>

#include "dls/layers/attention.h"
#include "dls/train/optim/optimizer.h"
#include "dls/util/operator_count.h"
#include "support/parameter_copies.h"

namespace dls::train {
namespace {

using settings::OptimizerKind;
using settings::OptimizerSettings;

// Parameters of assorted shapes, one of them larger than a thread's span (64k elements),
// so that the spans of a multi-threaded step cut through tensors.
std::vector<torch::Tensor> make_parameters(torch::Dtype dtype = torch::kFloat32) {
  torch::manual_seed(11);
  std::vector<torch::Tensor> params;
  for (const auto& shape : std::vector<std::vector<std::int64_t>>{{3}, {17, 5}, {300, 257}, {1, 1, 8}}) {
    params.push_back(torch::randn(shape, torch::TensorOptions().dtype(dtype)).requires_grad_(true));
  }
  return params;
}

// Sets the same pseudo-random gradients (seeded by step) on both parameter lists; the last
// parameter gets none at step 2, as a parameter the loss does not reach.
void set_gradients(std::vector<torch::Tensor>& a, std::vector<torch::Tensor>& b, int step) {
  torch::manual_seed(100 + step);
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (step == 2 && i + 1 == a.size()) {
      a[i].mutable_grad() = torch::Tensor();
      b[i].mutable_grad() = torch::Tensor();
      continue;
    }
    const auto g = torch::randn_like(a[i]) * (step % 2 == 0 ? 1e-3 : 10.0);  // small and large
    a[i].mutable_grad() = g.clone();
    b[i].mutable_grad() = g.clone();
  }
}

void expect_close(const std::vector<torch::Tensor>& a, const std::vector<torch::Tensor>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_TRUE(torch::allclose(a[i], b[i], /*rtol=*/1e-5, /*atol=*/1e-7))
        << "parameter " << i << ": max difference " << (a[i] - b[i]).abs().max().item<double>();
  }
}

// Runs `steps` steps of both optimizers on equal parameters and gradients; clip_plain > 0:
// clip_grad_norm_ to it before each step of `plain` (the plain loop of a clipping optimizer).
void run_both(torch::optim::Optimizer& fused, std::vector<torch::Tensor>& fused_params, torch::optim::Optimizer& plain,
              std::vector<torch::Tensor>& plain_params, int steps, double clip_plain = 0) {
  for (int step = 0; step < steps; ++step) {
    set_gradients(fused_params, plain_params, step);
    fused.step();
    if (clip_plain > 0) torch::nn::utils::clip_grad_norm_(plain_params, clip_plain);
    plain.step();
  }
}

TEST(FusedAdam, EqualsLibTorchsAdam) {
  for (const double weight_decay : {0.0, 0.01}) {
    auto fused_params = make_parameters();
    auto plain_params = testing::parameter_copies(fused_params);
    const auto options = torch::optim::AdamOptions(1e-3).betas({0.9, 0.98}).eps(1e-6).weight_decay(weight_decay);
    FusedAdam fused(fused_params, options, 2);
    torch::optim::Adam plain(plain_params, options);
    run_both(fused, fused_params, plain, plain_params, 6);
    SCOPED_TRACE(weight_decay);
    expect_close(fused_params, plain_params);
  }
}

TEST(FusedAdam, AdamWEqualsLibTorchsAdamW) {
  auto fused_params = make_parameters();
  auto plain_params = testing::parameter_copies(fused_params);
  const auto options = torch::optim::AdamWOptions(1.5e-3).betas({0.9, 0.999}).eps(1e-8).weight_decay(0.05);
  FusedAdamW fused(fused_params, options, 2);
  torch::optim::AdamW plain(plain_params, options);
  run_both(fused, fused_params, plain, plain_params, 6);
  expect_close(fused_params, plain_params);
}

// `Fused` clipping to clip_norm against clip_grad_norm_ before LibTorch's `Plain`, six steps.
template <typename Fused, typename Plain, typename Options>
void expect_clipped_like_libtorch(const Options& options, double clip_norm) {
  auto fused_params = make_parameters();
  auto plain_params = testing::parameter_copies(fused_params);
  Fused fused(fused_params, options, 2, clip_norm);
  Plain plain(plain_params, options);
  run_both(fused, fused_params, plain, plain_params, 6, clip_norm);
  expect_close(fused_params, plain_params);
}

// The gradients of the odd steps (about 10 each) are clipped, those of the even ones (about
// 1e-3, a norm of 0.28) are not.
TEST(FusedAdam, ClippingEqualsClipGradNormBeforeLibTorchsStep) {
  expect_clipped_like_libtorch<FusedAdam, torch::optim::Adam>(torch::optim::AdamOptions(1e-3).weight_decay(0.01), 1.0);
  expect_clipped_like_libtorch<FusedAdamW, torch::optim::AdamW>(torch::optim::AdamWOptions(1.5e-3).weight_decay(0.05),
                                                                0.5);
}

// The norm and the update in one pass each: no ATen operator, where clip_grad_norm_ dispatches
// two per gradient.
TEST(FusedAdam, ClippingDispatchesNoOperator) {
  auto params = make_parameters();
  auto unused = testing::parameter_copies(params);
  FusedAdamW fused(params, torch::optim::AdamWOptions(1e-3), 2, /*clip_norm=*/1.0);
  set_gradients(params, unused, 1);
  fused.step();  // creates the state (zeros_like per parameter)
  set_gradients(params, unused, 1);
  EXPECT_EQ(util::count_operators([&] { fused.step(); }).aten_ops, 0);
}

// Two threads cut the 300 x 257 parameter at element 38,510 (not a multiple of 4), so
// elements that one thread updates four at a time go through the scalar tail of the other:
// the SSE and the scalar path must agree bit for bit, and so must the clipping norm, which
// three threads sum in other spans than one.
TEST(FusedAdam, ThreadCountDoesNotChangeTheResult) {
  auto one = make_parameters();
  auto three = testing::parameter_copies(one);
  const auto options = torch::optim::AdamWOptions(1e-3).weight_decay(0.01);
  FusedAdamW single(one, options, 1, /*clip_norm=*/1.0);
  FusedAdamW multi(three, options, 3, /*clip_norm=*/1.0);
  run_both(single, one, multi, three, 4);
  for (std::size_t i = 0; i < one.size(); ++i) EXPECT_TRUE(torch::equal(one[i], three[i])) << i;
}

TEST(FusedAdam, StateIsLibTorchsAndLoadsEitherWay) {
  // Fused for three steps, saved, loaded into LibTorch's Adam, two more steps: the same as
  // LibTorch's Adam for all five steps.
  auto fused_params = make_parameters();
  auto plain_params = testing::parameter_copies(fused_params);
  const auto options = torch::optim::AdamOptions(2e-3);
  FusedAdam fused(fused_params, options, 2);
  torch::optim::Adam plain(plain_params, options);
  run_both(fused, fused_params, plain, plain_params, 3);

  std::ostringstream saved;
  {
    torch::serialize::OutputArchive archive;
    fused.save(archive);
    archive.save_to(saved);
  }
  torch::optim::Adam resumed(fused_params, options);
  {
    std::istringstream in(saved.str());
    torch::serialize::InputArchive archive;
    archive.load_from(in);
    resumed.load(archive);
  }
  for (int step = 3; step < 5; ++step) {
    set_gradients(fused_params, plain_params, step);
    resumed.step();
    plain.step();
  }
  expect_close(fused_params, plain_params);
}

TEST(FusedAdam, OtherTensorsTakeLibTorchsStep) {
  // float64 parameters are not fused: the result is LibTorch's exactly.
  auto fused_params = make_parameters(torch::kFloat64);
  auto plain_params = testing::parameter_copies(fused_params);
  const auto options = torch::optim::AdamOptions(1e-3);
  FusedAdam fused(fused_params, options, 2);
  torch::optim::Adam plain(plain_params, options);
  run_both(fused, fused_params, plain, plain_params, 3);
  for (std::size_t i = 0; i < fused_params.size(); ++i) {
    EXPECT_TRUE(torch::equal(fused_params[i], plain_params[i])) << i;
  }
  // Clipping too, before LibTorch's step.
  FusedAdam clipping(fused_params, options, 2, /*clip_norm=*/1.0);
  torch::optim::Adam plain_again(plain_params, options);
  run_both(clipping, fused_params, plain_again, plain_params, 3, /*clip_plain=*/1.0);
  expect_close(fused_params, plain_params);
}

TEST(FusedAdam, MakeOptimizerChoosesByOption) {
  auto params = make_parameters();
  settings::OptimizerSettings options;
  options.kind = settings::OptimizerKind::kAdamW;
  EXPECT_NE(dynamic_cast<FusedAdamW*>(make_optimizer(params, options, 1e-3).get()), nullptr);
  options.fused = false;
  auto plain = make_optimizer(params, options, 1e-3);
  EXPECT_EQ(dynamic_cast<FusedAdamW*>(plain.get()), nullptr);
  EXPECT_NE(dynamic_cast<torch::optim::AdamW*>(plain.get()), nullptr);
  options.kind = settings::OptimizerKind::kAdam;
  options.fused = true;
  EXPECT_NE(dynamic_cast<FusedAdam*>(make_optimizer(params, options, 1e-3).get()), nullptr);
}

// make_optimizer's optimizer clips to the settings' norm itself, fused or LibTorch's (the
// trainers no longer clip before its step): both equal clip_grad_norm_ before LibTorch's step.
TEST(FusedAdam, MakeOptimizersOptimizerClipsWhicheverKind) {
  for (const bool fused : {true, false}) {
    auto ours = make_parameters();
    auto theirs = testing::parameter_copies(ours);
    settings::OptimizerSettings options;
    options.kind = settings::OptimizerKind::kAdamW;
    options.fused = fused;
    options.clip_grad_norm = 1.0;
    auto optimizer = make_optimizer(ours, options, 1e-3);
    torch::optim::AdamW reference(theirs, torch::optim::AdamWOptions(1e-3)
                                              .betas({options.beta1, options.beta2})
                                              .eps(options.eps)
                                              .weight_decay(options.weight_decay));
    run_both(*optimizer, ours, reference, theirs, 4, /*clip_plain=*/1.0);
    SCOPED_TRACE(fused ? "fused" : "LibTorch's");
    expect_close(ours, theirs);
    if (!fused) {
      for (std::size_t i = 0; i < ours.size(); ++i) EXPECT_TRUE(torch::equal(ours[i], theirs[i])) << i;
    }
  }
}

// The step writes the weights through raw pointers and moves their version counters by hand:
// an attention layer's heads stacked for an evaluation before the step are stacked again
// after it (attention_core.h), so that the evaluation sees the trained weights.
TEST(FusedAdam, EvaluationAfterAStepSeesTheNewWeights) {
  torch::manual_seed(5);
  TransformerConfig config;
  config.layout(Layout::kVaswani).embedding_size(16).num_heads(4).max_seq_length(6);
  SelfAttention attention(config);
  const auto x = torch::randn({2, 5, 16});
  const auto evaluate = [&] {
    torch::NoGradGuard no_grad;
    attention->eval();
    auto fast = attention(x), plain = attention->forward_per_head(x);
    attention->train();
    return std::make_pair(fast, plain);
  };
  const auto before = evaluate();
  EXPECT_TRUE(torch::allclose(before.first, before.second, 1e-5, 1e-6));
  FusedAdam optimizer(attention->parameters(), torch::optim::AdamOptions(0.1), 1);
  attention(x).pow(2).sum().backward();
  optimizer.step();
  const auto after = evaluate();
  EXPECT_FALSE(torch::allclose(after.second, before.second, 1e-3, 1e-3));  // the step changed the layer
  EXPECT_TRUE(torch::allclose(after.first, after.second, 1e-5, 1e-6));
}

}  // namespace
}  // namespace dls::train

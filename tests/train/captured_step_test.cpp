#include "dls/train/captured_step.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <iostream>
#include <memory>
#include <vector>

#include <torch/cuda.h>
#include <torch/torch.h>

#include "dls/settings/optimizer_settings.h"
#include "dls/train/optim/graph_safe_adam.h"
#include "dls/train/optim/optimizer.h"
#include "dls/train/parallel/gradient_buffer.h"
#include "dls/util/operator_count.h"

namespace dls::train::captured_step_test {
namespace {

// A small model and a summed loss whose batches come in two shapes (two graphs).
struct Net : torch::nn::Module {
  Net() {
    a = register_module("a", torch::nn::Linear(6, 16));
    b = register_module("b", torch::nn::Linear(16, 3));
  }
  torch::Tensor forward(const torch::Tensor& x) { return b(torch::tanh(a(x))); }
  torch::nn::Linear a{nullptr}, b{nullptr};
};

torch::Tensor loss_sum(Net& net, const torch::Tensor& x, const torch::Tensor& y) {
  return (net.forward(x) - y).pow(2).sum();
}

struct Batch {
  torch::Tensor x, y;
  double denominator;
};

std::vector<Batch> batches(const torch::Device& device) {
  torch::manual_seed(5);
  std::vector<Batch> out;
  for (int i = 0; i < 6; ++i) {
    const std::int64_t rows = i % 2 == 0 ? 8 : 5;
    out.push_back(
        {torch::randn({rows, 6}).to(device), (3 * torch::randn({rows, 3})).to(device), static_cast<double>(rows)});
  }
  return out;
}

settings::OptimizerSettings optimizer_settings() {
  settings::OptimizerSettings options;
  options.kind = settings::OptimizerKind::kAdamW;
  options.weight_decay = 0.01;
  options.clip_grad_norm = 0.5;
  return options;
}

// The captured program (recorded on CUDA, eager otherwise) under `autocast`: the losses of
// each step, and the final weights.
std::pair<std::vector<double>, std::vector<torch::Tensor>> train_captured(const torch::Device& device, bool record,
                                                                          util::AutocastState autocast = {}) {
  torch::manual_seed(1);
  auto net = std::make_shared<Net>();
  net->to(device);
  auto gradients = std::make_shared<GradientBuffer>(net->parameters());
  auto optimizer = make_graph_safe_optimizer(gradients->parameters(), gradients->flat(), optimizer_settings(), 0.05);
  CapturedStep step(
      device, gradients->parameters(), dynamic_cast<GraphSafeOptimizer&>(*optimizer),
      [&](const torch::Tensor& x, const torch::Tensor& y) { return loss_sum(*net, x, y); }, autocast, record);
  std::vector<torch::Tensor> losses;
  int k = 0;
  for (const auto& batch : batches(device)) {
    set_learning_rate(*optimizer, 0.05 / ++k);
    losses.push_back(step.run(batch.x, batch.y, batch.denominator));
  }
  EXPECT_EQ(step.graphs(), 2U);
  std::vector<double> read;
  for (const auto& loss : losses) read.push_back(loss.item<double>());
  std::vector<torch::Tensor> weights;
  for (const auto& p : net->parameters()) weights.push_back(p.detach().cpu());
  return {read, weights};
}

// The plain loop: fresh gradients, loss = sum / rows, backward, clip_grad_norm_, LibTorch's AdamW.
std::pair<std::vector<double>, std::vector<torch::Tensor>> train_plain(const torch::Device& device) {
  torch::manual_seed(1);
  auto net = std::make_shared<Net>();
  net->to(device);
  auto options = optimizer_settings();
  options.fused = false;
  auto unclipped = options;  // clip_grad_norm_ below does it
  unclipped.clip_grad_norm = 0;
  auto optimizer = make_optimizer(net->parameters(), unclipped, 0.05);
  std::vector<double> losses;
  int k = 0;
  for (const auto& batch : batches(device)) {
    set_learning_rate(*optimizer, 0.05 / ++k);
    optimizer->zero_grad();
    const auto loss = loss_sum(*net, batch.x, batch.y) / batch.denominator;
    loss.backward();
    torch::nn::utils::clip_grad_norm_(net->parameters(), options.clip_grad_norm);
    optimizer->step();
    losses.push_back(loss.item<double>());
  }
  std::vector<torch::Tensor> weights;
  for (const auto& p : net->parameters()) weights.push_back(p.detach().cpu());
  return {losses, weights};
}

void expect_same_training(const std::pair<std::vector<double>, std::vector<torch::Tensor>>& a,
                          const std::pair<std::vector<double>, std::vector<torch::Tensor>>& b) {
  ASSERT_EQ(a.first.size(), b.first.size());
  for (std::size_t i = 0; i < a.first.size(); ++i) EXPECT_NEAR(a.first[i], b.first[i], 1e-5) << "step " << i + 1;
  ASSERT_EQ(a.second.size(), b.second.size());
  for (std::size_t i = 0; i < a.second.size(); ++i) {
    EXPECT_TRUE(torch::allclose(a.second[i], b.second[i], 1e-4, 1e-6))
        << "parameter " << i << ": max difference " << (a.second[i] - b.second[i]).abs().max().item<double>();
  }
}

TEST(CapturedStep, TheProgramTrainsAsThePlainLoop) {
  expect_same_training(train_captured(torch::kCPU, /*record=*/false), train_plain(torch::kCPU));
}

// Backward hands its gradients to the optimizer: no AccumulateGrad node adds them into the
// grad() views (on a GPU a kernel per parameter, and a pass zeroing the views before).
std::atomic<long> g_backward_nodes{0}, g_accumulations{0};
TEST(CapturedStep, BackwardHandsItsGradientsToTheOptimizer) {
  torch::manual_seed(1);
  auto net = std::make_shared<Net>();
  auto gradients = std::make_shared<GradientBuffer>(net->parameters());
  auto optimizer = make_graph_safe_optimizer(gradients->parameters(), gradients->flat(), optimizer_settings(), 0.05);
  CapturedStep step(
      torch::kCPU, gradients->parameters(), dynamic_cast<GraphSafeOptimizer&>(*optimizer),
      [&](const torch::Tensor& x, const torch::Tensor& y) { return loss_sum(*net, x, y); }, util::AutocastState{},
      /*record=*/false);
  const auto batch = batches(torch::kCPU).front();
  util::with_global_callback(
      at::RecordFunctionCallback([](const at::RecordFunction& record) -> std::unique_ptr<at::ObserverContext> {
        ++g_backward_nodes;
        if (std::strstr(record.name(), "AccumulateGrad") != nullptr) ++g_accumulations;
        return nullptr;
      }).scopes({at::RecordScope::BACKWARD_FUNCTION}),
      [&] { step.run(batch.x, batch.y, batch.denominator); });
  EXPECT_GT(g_backward_nodes.load(), 0) << "backward ran";
  EXPECT_EQ(g_accumulations.load(), 0) << "gradients added into grad()";
}

TEST(CapturedStep, ReplayedGraphsTrainAsThePlainLoopOnCuda) {
  if (!torch::cuda::is_available()) GTEST_SKIP() << "no CUDA device (the GPU check runs it)";
  const torch::Device cuda(torch::kCUDA, 0);
  const auto replayed = train_captured(cuda, /*record=*/true);
  expect_same_training(replayed, train_captured(cuda, /*record=*/false));
  expect_same_training(replayed, train_plain(cuda));
}

TEST(CapturedStep, ReplayedGraphsInBf16TrainAsTheEagerProgramOnCuda) {
  if (!torch::cuda::is_available()) GTEST_SKIP() << "no CUDA device (the GPU check runs it)";
  const torch::Device cuda(torch::kCUDA, 0);
  const auto bf16 = util::autocast_for(util::Precision::kBf16, cuda);
  const auto replayed = train_captured(cuda, /*record=*/true, bf16);
  const auto eager = train_captured(cuda, /*record=*/false, bf16);
  double loss_difference = 0, weight_difference = 0;
  for (std::size_t i = 0; i < replayed.first.size(); ++i) {
    loss_difference = std::max(loss_difference, std::abs(replayed.first[i] - eager.first[i]));
  }
  for (std::size_t i = 0; i < replayed.second.size(); ++i) {
    weight_difference = std::max(weight_difference, (replayed.second[i] - eager.second[i]).abs().max().item<double>());
  }
  std::cout << "bf16 replay against eager: max difference of the losses " << loss_difference << ", of the weights "
            << weight_difference << "\n";
  // The same kernels on the same tensors: equal up to reduction order. A stale autocast copy of
  // a weight (a cast cached while recording) would replay the first step's weights.
  for (std::size_t i = 0; i < replayed.first.size(); ++i) {
    EXPECT_NEAR(replayed.first[i], eager.first[i], 1e-3 * std::max(1.0, std::abs(eager.first[i]))) << "step " << i + 1;
  }
  EXPECT_LT(weight_difference, 1e-3);
}

// A model with dropout between its layers: fresh masks every training step.
struct DropoutNet : torch::nn::Module {
  explicit DropoutNet(double p) : p(p) {
    a = register_module("a", torch::nn::Linear(6, 32));
    b = register_module("b", torch::nn::Linear(32, 3));
  }
  torch::Tensor forward(const torch::Tensor& x) { return b(torch::dropout(torch::tanh(a(x)), p, is_training())); }
  double p;
  torch::nn::Linear a{nullptr}, b{nullptr};
};

// The losses of `steps` captured steps (recorded or eager) of a DropoutNet learning a fixed
// teacher, y = tanh(x A) B, from 8 batches of 64 rows cycled (`one_batch`: the first only),
// at learning rate `lr` (0: the weights stay as initialised). `mask_seed` seeds the dropout
// masks after the weights and batches are made.
std::vector<double> train_with_dropout(const torch::Device& device, bool record, double p, double lr, int steps,
                                       bool one_batch, std::uint64_t mask_seed = 11) {
  torch::manual_seed(2);
  const auto teacher_a = torch::randn({6, 16});
  const auto teacher_b = torch::randn({16, 3});
  std::vector<std::pair<torch::Tensor, torch::Tensor>> data;
  for (int i = 0; i < 8; ++i) {
    const auto x = torch::randn({64, 6});
    data.emplace_back(x.to(device), torch::tanh(x.mm(teacher_a)).mm(teacher_b).to(device));
  }
  torch::manual_seed(1);
  auto net = std::make_shared<DropoutNet>(p);
  net->to(device);
  auto gradients = std::make_shared<GradientBuffer>(net->parameters());
  auto optimizer = make_graph_safe_optimizer(gradients->parameters(), gradients->flat(), optimizer_settings(), lr);
  CapturedStep step(
      device, gradients->parameters(), dynamic_cast<GraphSafeOptimizer&>(*optimizer),
      [&](const torch::Tensor& x, const torch::Tensor& y) { return (net->forward(x) - y).pow(2).sum(); },
      util::AutocastState{}, record);
  torch::manual_seed(mask_seed);
  std::vector<torch::Tensor> losses;
  for (int i = 0; i < steps; ++i) {
    const auto& [x, y] = data[one_batch ? 0 : i % data.size()];
    losses.push_back(step.run(x, y, 64.0));
  }
  std::vector<double> read;
  for (const auto& loss : losses) read.push_back(loss.item<double>());
  return read;
}

double mean_of_last(const std::vector<double>& values, std::size_t n) {
  double sum = 0;
  for (std::size_t i = values.size() - n; i < values.size(); ++i) sum += values[i];
  return sum / static_cast<double>(n);
}

// Learning rate 0: the weights and the batch stay; only the dropout masks can change the loss.
void expect_fresh_masks_every_step(const torch::Device& device, bool record) {
  const auto with_dropout = train_with_dropout(device, record, 0.5, 0.0, 4, /*one_batch=*/true);
  const auto without = train_with_dropout(device, record, 0.0, 0.0, 4, /*one_batch=*/true);
  for (std::size_t i = 1; i < without.size(); ++i) EXPECT_EQ(without[i], without[0]) << "step " << i + 1;
  for (std::size_t i = 0; i < with_dropout.size(); ++i) {
    for (std::size_t j = i + 1; j < with_dropout.size(); ++j) {
      EXPECT_NE(with_dropout[i], with_dropout[j]) << "steps " << i + 1 << " and " << j + 1 << " used the same masks";
    }
  }
}

TEST(CapturedStep, DropoutMasksAreFreshInEveryStep) { expect_fresh_masks_every_step(torch::kCPU, /*record=*/false); }

TEST(CapturedStep, DropoutMasksAreFreshInEveryReplayOnCuda) {
  if (!torch::cuda::is_available()) GTEST_SKIP() << "no CUDA device (the GPU check runs it)";
  expect_fresh_masks_every_step(torch::Device(torch::kCUDA, 0), /*record=*/true);
}

// Replayed with dropout, the model trains as the eager program does: other masks, the same
// loss within the noise that other masks make (the CPU test below measures that noise).
TEST(CapturedStep, ReplayedGraphsWithDropoutTrainAsTheEagerProgramOnCuda) {
  if (!torch::cuda::is_available()) GTEST_SKIP() << "no CUDA device (the GPU check runs it)";
  const torch::Device cuda(torch::kCUDA, 0);
  const auto replayed = train_with_dropout(cuda, /*record=*/true, 0.1, 0.01, 400, /*one_batch=*/false);
  const auto eager = train_with_dropout(cuda, /*record=*/false, 0.1, 0.01, 400, /*one_batch=*/false);
  const double a = mean_of_last(replayed, 100), b = mean_of_last(eager, 100);
  std::cout << "dropout 0.1, 400 steps: mean loss of the last 100, replayed " << a << ", eager " << b << " (first step "
            << eager.front() << ")\n";
  EXPECT_LT(b, 0.2 * eager.front());
  EXPECT_NEAR(a, b, 0.1 * b);
}

// The noise the test above allows for: the eager program with other dropout masks.
TEST(CapturedStep, OtherDropoutMasksTrainAlike) {
  const auto one = train_with_dropout(torch::kCPU, /*record=*/false, 0.1, 0.01, 400, /*one_batch=*/false, 11);
  const auto other = train_with_dropout(torch::kCPU, /*record=*/false, 0.1, 0.01, 400, /*one_batch=*/false, 12);
  const double a = mean_of_last(one, 100), b = mean_of_last(other, 100);
  std::cout << "dropout 0.1, 400 steps, two mask seeds: mean loss of the last 100 " << a << ", " << b << "\n";
  EXPECT_NE(one.back(), other.back());  // other masks
  EXPECT_LT(b, 0.2 * other.front());
  EXPECT_NEAR(a, b, 0.1 * b);
}

}  // namespace
}  // namespace dls::train::captured_step_test

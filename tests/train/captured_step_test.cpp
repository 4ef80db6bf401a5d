#include "dls/train/captured_step.h"

#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include <torch/cuda.h>
#include <torch/torch.h>

#include "dls/settings/optimizer_settings.h"
#include "dls/train/optim/graph_safe_adam.h"
#include "dls/train/optim/optimizer.h"
#include "dls/train/parallel/gradient_buffer.h"

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

// The captured program (recorded on CUDA, eager otherwise): the losses of each step, and
// the final weights.
std::pair<std::vector<double>, std::vector<torch::Tensor>> train_captured(const torch::Device& device, bool record) {
  torch::manual_seed(1);
  auto net = std::make_shared<Net>();
  net->to(device);
  auto gradients = std::make_shared<GradientBuffer>(net->parameters());
  auto optimizer = make_graph_safe_optimizer(gradients->parameters(), gradients->flat(), optimizer_settings(), 0.05);
  CapturedStep step(
      device, *gradients, dynamic_cast<GraphSafeOptimizer&>(*optimizer),
      [&](const torch::Tensor& x, const torch::Tensor& y) { return loss_sum(*net, x, y); }, util::AutocastState{},
      record);
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

TEST(CapturedStep, ReplayedGraphsTrainAsThePlainLoopOnCuda) {
  if (!torch::cuda::is_available()) GTEST_SKIP() << "no CUDA device (the GPU check runs it)";
  const torch::Device cuda(torch::kCUDA, 0);
  const auto replayed = train_captured(cuda, /*record=*/true);
  expect_same_training(replayed, train_captured(cuda, /*record=*/false));
  expect_same_training(replayed, train_plain(cuda));
}

}  // namespace
}  // namespace dls::train::captured_step_test

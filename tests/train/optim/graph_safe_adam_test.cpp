#include "dls/train/optim/graph_safe_adam.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <memory>
#include <sstream>

#include <torch/cuda.h>
#include <torch/torch.h>
#include <torch/version.h>

#include "dls/settings/optimizer_settings.h"
#include "dls/train/optim/optimizer.h"
#include "dls/train/parallel/gradient_buffer.h"
#include "dls/util/operator_count.h"
#include "support/parameter_copies.h"

namespace dls::train::graph_safe_adam_test {
namespace {

using settings::OptimizerKind;
using settings::OptimizerSettings;

std::vector<torch::Tensor> make_parameters(const torch::Device& device = torch::kCPU) {
  torch::manual_seed(3);
  std::vector<torch::Tensor> params;
  for (const auto& shape : std::vector<std::vector<std::int64_t>>{{3}, {17, 5}, {40, 33}, {1, 1, 8}}) {
    params.push_back(torch::randn(shape).to(device).requires_grad_(true));
  }
  return params;
}

// The same pseudo-random gradients on both lists: into the graph-safe side's views (which
// must stay its grad()), as fresh tensors on LibTorch's side. Odd steps are large, so that
// clipping to 1 applies; even ones small, so that it does not.
void set_gradients(std::vector<torch::Tensor>& views_side, std::vector<torch::Tensor>& plain_side, int step) {
  torch::manual_seed(100 + step);
  for (std::size_t i = 0; i < views_side.size(); ++i) {
    const auto g = torch::randn_like(plain_side[i]) * (step % 2 == 1 ? 10.0 : 1e-3);
    views_side[i].mutable_grad().copy_(g);
    plain_side[i].mutable_grad() = g.clone();
  }
}

void expect_close(const std::vector<torch::Tensor>& a, const std::vector<torch::Tensor>& b, const std::string& what) {
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_TRUE(torch::allclose(a[i], b[i], /*rtol=*/1e-5, /*atol=*/1e-6))
        << what << ": parameter " << i << ", max difference " << (a[i] - b[i]).abs().max().item<double>();
  }
}

// Both optimizers from the same settings: the graph-safe one over a gradient buffer of
// `params`, LibTorch's plain one (fused off) over `plain`, clip_grad_norm_ before its step.
struct Pair {
  std::shared_ptr<GradientBuffer> gradients;
  std::unique_ptr<torch::optim::Optimizer> graph_safe, plain;
};

Pair make_pair(std::vector<torch::Tensor>& params, std::vector<torch::Tensor>& plain, OptimizerSettings options) {
  Pair pair;
  pair.gradients = std::make_shared<GradientBuffer>(params);
  pair.graph_safe = make_graph_safe_optimizer(params, pair.gradients->flat(), options, 0.01);
  options.fused = false;
  options.clip_grad_norm = 0;  // run_steps calls clip_grad_norm_
  pair.plain = make_optimizer(plain, options, 0.01);
  return pair;
}

void run_steps(Pair& pair, std::vector<torch::Tensor>& params, std::vector<torch::Tensor>& plain,
               const OptimizerSettings& options, int first, int last) {
  for (int step = first; step <= last; ++step) {
    set_gradients(params, plain, step);
    const double lr = 0.01 / step;  // the schedule changes the rate every step
    set_learning_rate(*pair.graph_safe, lr);
    set_learning_rate(*pair.plain, lr);
    pair.graph_safe->step();
    if (options.clip_grad_norm > 0) torch::nn::utils::clip_grad_norm_(plain, options.clip_grad_norm);
    pair.plain->step();
  }
}

// With LibTorch >= 2.4 the step is ATen's fused kernel (CPU and CUDA); with 1.13 the operators.
void expect_equal_to_libtorchs_adam_and_adamw(const torch::Device& device) {
  for (const auto kind : {OptimizerKind::kAdam, OptimizerKind::kAdamW}) {
    for (const double decay : {0.0, 0.1}) {
      OptimizerSettings options;
      options.kind = kind;
      options.weight_decay = decay;
      options.clip_grad_norm = 1.0;
      auto params = make_parameters(device);
      auto plain = testing::parameter_copies(params);
      auto pair = make_pair(params, plain, options);
      run_steps(pair, params, plain, options, 1, 6);
      expect_close(params, plain, settings::to_string(kind) + " decay " + std::to_string(decay));
      for (std::size_t i = 0; i < params.size(); ++i) {
        EXPECT_TRUE(params[i].grad().is_same(pair.gradients->view(i))) << "gradient " << i << " left the buffer";
      }
    }
  }
}

TEST(GraphSafeAdam, EqualsLibTorchsAdamAndAdamWWithClippingAndWeightDecay) {
  expect_equal_to_libtorchs_adam_and_adamw(torch::kCPU);
}

TEST(GraphSafeAdam, EqualsLibTorchsAdamAndAdamWOnCuda) {
  if (!torch::cuda::is_available()) GTEST_SKIP() << "no CUDA device (the GPU check runs it)";
  expect_equal_to_libtorchs_adam_and_adamw(torch::Device(torch::kCUDA, 0));
}

// A warm-up schedule may start at 0: the parameters stay as they are, also where a gradient
// and so the second moment are 0 (the step size is folded into the denominator, which must
// not become 0 * inf there).
TEST(GraphSafeAdam, ALearningRateOfZeroLeavesTheParameters) {
  for (const auto kind : {OptimizerKind::kAdam, OptimizerKind::kAdamW}) {
    OptimizerSettings options;
    options.kind = kind;
    options.weight_decay = 0.1;
    auto params = make_parameters();
    const auto before = testing::parameter_copies(params);
    GradientBuffer gradients(params);
    auto optimizer = make_graph_safe_optimizer(params, gradients.flat(), options, 0.0);
    for (std::size_t i = 0; i < params.size(); ++i) {
      params[i].mutable_grad().copy_(i % 2 == 0 ? torch::zeros_like(params[i]) : torch::randn_like(params[i]));
    }
    optimizer->step();
    for (std::size_t i = 0; i < params.size(); ++i) {
      EXPECT_TRUE(torch::equal(params[i], before[i])) << settings::to_string(kind) << ": parameter " << i;
    }
  }
}

// The step is work on flat tensors: what it dispatches does not grow with the parameter count
// (each operator is one kernel, or a few multi-tensor ones, on a GPU), beyond the binding of
// views at the first step.
TEST(GraphSafeAdam, ItsStepDispatchesAsManyOperatorsForManyParameters) {
  for (const auto kind : {OptimizerKind::kAdam, OptimizerKind::kAdamW}) {
    std::vector<std::int64_t> counts;
    for (const int copies : {1, 10}) {
      std::vector<torch::Tensor> params;
      for (int c = 0; c < copies; ++c) {
        const auto more = make_parameters();  // fresh tensors each time
        params.insert(params.end(), more.begin(), more.end());
      }
      OptimizerSettings options;
      options.kind = kind;
      options.weight_decay = 0.1;
      options.clip_grad_norm = 1.0;
      GradientBuffer gradients(params);
      auto optimizer = make_graph_safe_optimizer(params, gradients.flat(), options, 0.01);
      gradients.flat().normal_();
      optimizer->step();  // binds the state
      counts.push_back(util::count_operators([&] { optimizer->step(); }).top_level_ops);
    }
    EXPECT_EQ(counts[0], counts[1]) << settings::to_string(kind) << ": 4 parameters, then 40";
    EXPECT_LT(counts[1], 40) << settings::to_string(kind);
  }
}

// Saves `from`'s state and loads it into `to` (through LibTorch's archives, as checkpoints).
void transfer(const torch::optim::Optimizer& from, torch::optim::Optimizer& to) {
  torch::serialize::OutputArchive out;
  from.save(out);
  std::ostringstream bytes;
  out.save_to(bytes);
  std::istringstream in_bytes(bytes.str());
  torch::serialize::InputArchive in;
  in.load_from(in_bytes);
  to.load(in);
}

TEST(GraphSafeAdam, ItsStateLoadsIntoLibTorchsAdamAndBack) {
  OptimizerSettings options;
  options.clip_grad_norm = 1.0;
  auto params = make_parameters();
  auto plain = testing::parameter_copies(params);
  auto pair = make_pair(params, plain, options);
  run_steps(pair, params, plain, options, 1, 3);

  // Graph-safe -> LibTorch: a fresh LibTorch Adam with the graph-safe state continues as the
  // one that took the steps.
  auto reloaded = testing::parameter_copies(params);
  auto reloaded_plain = make_optimizer(
      reloaded,
      [&] {
        auto o = options;
        o.fused = false;
        o.clip_grad_norm = 0;  // run_steps calls clip_grad_norm_
        return o;
      }(),
      0.01);
  transfer(*pair.graph_safe, *reloaded_plain);
  // LibTorch -> graph-safe: a fresh graph-safe Adam with LibTorch's state.
  auto again = testing::parameter_copies(plain);
  auto again_gradients = std::make_shared<GradientBuffer>(again);
  auto again_graph_safe = make_graph_safe_optimizer(again, again_gradients->flat(), options, 0.01);
  transfer(*pair.plain, *again_graph_safe);

  run_steps(pair, params, plain, options, 4, 6);
  Pair loaded{again_gradients, std::move(again_graph_safe), std::move(reloaded_plain)};
  run_steps(loaded, again, reloaded, options, 4, 6);
  expect_close(reloaded, plain, "LibTorch's Adam from the graph-safe state");
  expect_close(again, params, "graph-safe Adam from LibTorch's state");
}

// Gradients handed over as backward made them (the captured step's) update the parameters as
// the same gradients in the grad() views do: one laid out transposed, one missing (a parameter
// backward did not reach: zeros), clipping on.
TEST(GraphSafeAdam, HandedOverGradientsUpdateAsTheFlatOnes) {
  for (const auto kind : {OptimizerKind::kAdam, OptimizerKind::kAdamW}) {
    OptimizerSettings options;
    options.kind = kind;
    options.weight_decay = 0.1;
    options.clip_grad_norm = 1.0;
    auto from_views = make_parameters();
    auto handed = testing::parameter_copies(from_views);
    GradientBuffer view_gradients(from_views), handed_views(handed);
    auto with_views = make_graph_safe_optimizer(from_views, view_gradients.flat(), options, 0.01);
    auto with_handed = make_graph_safe_optimizer(handed, handed_views.flat(), options, 0.01);
    auto& handed_optimizer = dynamic_cast<GraphSafeOptimizer&>(*with_handed);
    for (int step = 1; step <= 4; ++step) {
      torch::manual_seed(200 + step);
      std::vector<torch::Tensor> gradients;
      for (std::size_t i = 0; i < from_views.size(); ++i) {
        const auto g = torch::randn_like(from_views[i]) * (step % 2 == 1 ? 10.0 : 1e-3);
        from_views[i].mutable_grad().copy_(i == 2 ? torch::zeros_like(g) : g);
        // Parameter 1 [17, 5]: a transposed tensor's view, not laid out as the parameter.
        gradients.push_back(i == 2 ? torch::Tensor() : i == 1 ? g.t().contiguous().t() : g.clone());
      }
      ASSERT_FALSE(gradients[1].is_contiguous());
      with_views->step();
      handed_optimizer.prepare();
      handed_optimizer.update_on_device(gradients);
      handed_optimizer.count_step();
    }
    expect_close(handed, from_views, settings::to_string(kind));
    EXPECT_THROW(handed_optimizer.update_on_device({torch::zeros({3})}), c10::Error) << "one gradient for four";
  }
}

// Backward may hand one tensor to two parameters (an addition's gradient goes to both inputs):
// each is clipped and used once, as two copies in the views are. And where LibTorch has ATen's
// fused kernel (>= 2.4) the update is that kernel, not the operators after a refusal.
std::atomic<long> g_fused_adam_calls{0};
TEST(GraphSafeAdam, OneGradientHandedToTwoParametersCountsForEach) {
  for (const auto kind : {OptimizerKind::kAdam, OptimizerKind::kAdamW}) {
    OptimizerSettings options;
    options.kind = kind;
    options.clip_grad_norm = 1.0;
    torch::manual_seed(4);
    std::vector<torch::Tensor> from_views{torch::randn({6}).requires_grad_(true),
                                          torch::randn({6}).requires_grad_(true)};
    auto handed = testing::parameter_copies(from_views);
    GradientBuffer view_gradients(from_views), handed_views(handed);
    auto with_views = make_graph_safe_optimizer(from_views, view_gradients.flat(), options, 0.01);
    auto with_handed = make_graph_safe_optimizer(handed, handed_views.flat(), options, 0.01);
    auto& handed_optimizer = dynamic_cast<GraphSafeOptimizer&>(*with_handed);
    g_fused_adam_calls = 0;
    for (int step = 1; step <= 3; ++step) {
      const auto g = torch::randn({6}) * 10.0;  // clipped
      for (auto& p : from_views) p.mutable_grad().copy_(g);
      with_views->step();
      handed_optimizer.prepare();
      util::with_global_callback(
          at::RecordFunctionCallback([](const at::RecordFunction& record) -> std::unique_ptr<at::ObserverContext> {
            if (std::strstr(record.name(), "_fused_adam") != nullptr) ++g_fused_adam_calls;
            return nullptr;
          }).scopes({at::RecordScope::FUNCTION}),
          [&] {
            handed_optimizer.update_on_device({g, g});
          });
      handed_optimizer.count_step();
    }
    expect_close(handed, from_views, settings::to_string(kind));
    const bool aten_fused = TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4);
    EXPECT_EQ(g_fused_adam_calls.load(), aten_fused ? 3 : 0)
        << settings::to_string(kind) << ", LibTorch " TORCH_VERSION;
  }
}

TEST(GraphSafeAdam, RefusesParametersWhoseGradientsAreNotTheFlatOnes) {
  auto params = make_parameters();
  const GradientBuffer gradients(params);
  EXPECT_THROW(GraphSafeAdam(testing::parameter_copies(params), torch::optim::AdamOptions(0.1), gradients.flat(), 0),
               c10::Error);
}

}  // namespace
}  // namespace dls::train::graph_safe_adam_test

#include "dls/train/captured_step.h"

#include <utility>

#include <spdlog/spdlog.h>
#include <torch/torch.h>

#include "dls/train/optim/graph_safe_adam.h"
#include "dls/train/parallel/gradient_buffer.h"
#include "train/device_graph.h"

namespace dls::train {

CapturedStep::CapturedStep(const torch::Device& device, GradientBuffer& gradients, GraphSafeOptimizer& optimizer,
                           LossSumFn loss_sum, util::AutocastState autocast, bool record)
    : device_(device),
      gradients_(gradients),
      optimizer_(optimizer),
      loss_sum_(std::move(loss_sum)),
      autocast_(autocast),
      record_(record),
      loss_(torch::zeros({}, torch::TensorOptions(torch::kDouble).device(device))) {}

CapturedStep::~CapturedStep() = default;

torch::Tensor CapturedStep::forward_backward(Program& program) {
  gradients_.zero();  // backward adds into the buffer's views in place
  torch::Tensor loss;
  {
    const util::AutocastScope precision(autocast_);
    loss = loss_sum_(program.inputs, program.targets) / program.denominator;
  }
  loss.backward();
  return loss;
}

void CapturedStep::body(Program& program) {
  const auto loss = forward_backward(program);
  optimizer_.update_on_device();
  torch::NoGradGuard no_grad;
  loss_.copy_(loss.detach());
}

torch::Tensor CapturedStep::run(const torch::Tensor& inputs, const torch::Tensor& targets, double denominator) {
  std::vector<std::int64_t> key(inputs.sizes().begin(), inputs.sizes().end());
  key.push_back(-1);
  key.insert(key.end(), targets.sizes().begin(), targets.sizes().end());
  auto found = programs_.find(key);
  const bool fresh = found == programs_.end();
  if (fresh) {
    Program program;
    program.inputs = inputs.clone();
    program.targets = targets.clone();
    program.denominator = torch::zeros({}, torch::TensorOptions(torch::kFloat32).device(device_));
    found = programs_.emplace(key, std::move(program)).first;
  } else {
    found->second.inputs.copy_(inputs, /*non_blocking=*/true);
    found->second.targets.copy_(targets, /*non_blocking=*/true);
  }
  auto& program = found->second;
  program.denominator.fill_(denominator > 0 ? denominator : 1.0);  // no real token: the sum, 0
  optimizer_.prepare();
  if (!record_) {
    body(program);
  } else {
    if (fresh) {
      auto graph = std::make_unique<DeviceGraph>();
      try {
        graph->capture(
            device_, [&] { forward_backward(program); }, [&] { body(program); }, first_graph_);
      } catch (...) {
        programs_.erase(found);
        throw;
      }
      program.graph = std::move(graph);
      if (first_graph_ == nullptr) first_graph_ = program.graph.get();
      spdlog::debug("CUDA graph {} recorded for batches of {} and {}", programs_.size(), c10::str(inputs.sizes()),
                    c10::str(targets.sizes()));
    }
    program.graph->replay();
  }
  optimizer_.count_step();
  return loss_.clone();
}

}  // namespace dls::train

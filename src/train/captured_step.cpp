#include "dls/train/captured_step.h"

#include <utility>

#include <spdlog/spdlog.h>
#include <torch/torch.h>

#include "dls/train/optim/graph_safe_adam.h"
#include "train/device_graph.h"

namespace dls::train {

CapturedStep::CapturedStep(const torch::Device& device, std::vector<torch::Tensor> parameters,
                           GraphSafeOptimizer& optimizer, LossSumFn loss_sum, util::AutocastState autocast, bool record)
    : device_(device),
      parameters_(std::move(parameters)),
      optimizer_(optimizer),
      loss_sum_(std::move(loss_sum)),
      autocast_(autocast),
      record_(record),
      loss_(torch::zeros({}, torch::TensorOptions(torch::kDouble).device(device))) {}

CapturedStep::~CapturedStep() = default;

CapturedStep::LossAndGradients CapturedStep::forward_backward(Program& program) {
  LossAndGradients out;
  {
    const util::AutocastScope precision(autocast_);
    out.loss = loss_sum_(program.inputs, program.targets) / program.denominator;
  }
  // The gradients as backward computes them, handed to the optimizer: no AccumulateGrad node
  // adding each into its grad() after a pass zeroing them all (on a GPU one kernel per
  // parameter and two passes over the gradients fewer each step).
  out.gradients = torch::autograd::grad({out.loss}, parameters_, /*grad_outputs=*/{}, /*retain_graph=*/false,
                                        /*create_graph=*/false, /*allow_unused=*/true);
  return out;
}

void CapturedStep::body(Program& program) {
  auto step = forward_backward(program);
  optimizer_.update_on_device(step.gradients);
  torch::NoGradGuard no_grad;
  loss_.copy_(step.loss.detach());
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

#include "dls/train/optim/clip_gradients.h"

#include <ATen/ops/_foreach_mul.h>
#include <ATen/ops/_foreach_norm.h>
#include <torch/torch.h>
#include <torch/version.h>

namespace dls::train {

namespace {

// Every gradient by `factor` (0-d, on their device) without a host wait where LibTorch allows.
void scale_by_foreach(std::vector<torch::Tensor>& gradients, const torch::Tensor& factor) {
  if (factor.device().is_cpu()) {
    at::_foreach_mul_(gradients, factor.item<double>());  // on the host already
    return;
  }
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 1)
  at::_foreach_mul_(gradients, factor);
#else
  for (auto& gradient : gradients) gradient.mul_(factor);  // 1.13 takes the factor only as a host number
#endif
}

}  // namespace

torch::Tensor clip_gradients(const std::vector<torch::Tensor>& parameters, double max_norm, ClipKernels kernels) {
  torch::NoGradGuard no_grad;
  std::vector<torch::Tensor> gradients;
  gradients.reserve(parameters.size());
  for (const auto& parameter : parameters) {
    if (parameter.grad().defined()) gradients.push_back(parameter.grad());
  }
  if (gradients.empty()) return {};
  std::vector<torch::Tensor> norms;  // [P] 0-d
  if (kernels == ClipKernels::kForeach) {
    norms = at::_foreach_norm(gradients, 2);
  } else {
    norms.reserve(gradients.size());
    for (const auto& gradient : gradients) norms.push_back(gradient.norm(2));
  }
  const auto norm = torch::stack(norms).norm(2);  // the norm of the norms: clip_grad_norm_'s total
  const auto factor = (max_norm / (norm + 1e-6)).clamp_max(1.0);
  if (kernels == ClipKernels::kForeach) {
    scale_by_foreach(gradients, factor);
  } else {
    for (auto& gradient : gradients) gradient.mul_(factor);
  }
  return norm;
}

torch::Tensor clip_gradients(const std::vector<torch::Tensor>& parameters, double max_norm) {
  const bool on_gpu = !parameters.empty() && !parameters.front().device().is_cpu();
  return clip_gradients(parameters, max_norm, on_gpu ? ClipKernels::kForeach : ClipKernels::kPerTensor);
}

torch::Tensor clip_gradients(const std::vector<torch::optim::OptimizerParamGroup>& groups, double max_norm) {
  std::vector<torch::Tensor> parameters;
  for (const auto& group : groups) parameters.insert(parameters.end(), group.params().begin(), group.params().end());
  return clip_gradients(parameters, max_norm);
}

}  // namespace dls::train

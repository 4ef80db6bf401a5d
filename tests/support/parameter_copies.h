// The same starting point for two optimizers compared step by step.
#pragma once

#include <vector>

#include <torch/torch.h>

namespace dls::testing {

// Each parameter detached and cloned, wanting gradients (none copied).
inline std::vector<torch::Tensor> parameter_copies(const std::vector<torch::Tensor>& params) {
  std::vector<torch::Tensor> out;
  for (const auto& p : params) out.push_back(p.detach().clone().requires_grad_(true));
  return out;
}

}  // namespace dls::testing

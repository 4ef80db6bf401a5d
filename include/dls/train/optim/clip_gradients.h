// Gradient clipping by the global 2-norm, as torch::nn::utils::clip_grad_norm_ does it, but
// without reading the norm back to the host: LibTorch's version ends with .item(), a wait on
// every GPU step that clips with it. On a GPU the norms and the scaling go through the
// multi-tensor (_foreach) operators, a few kernels for all the gradients where
// clip_grad_norm_ launches two per parameter (200 for the cpu preset's 100 tensors; 584
// before the attention heads were fused). On the CPU LibTorch's _foreach operators loop over
// the tensors and dispatch more than the plain loop (23,406 operators a cpu-preset step
// against 22,237, measured before the fusion), so the CPU takes the plain loop.
// The trainers' optimizers clip themselves (make_optimizer, optimizer.h): the graph-safe one on
// CUDA inside its own kernels (graph_safe_adam.h), eager or recorded, and the fused CPU one in
// its own pass (fused_adam.h). What comes here: LibTorch's own optimizers (--plain-adam), the
// parameters the fused one hands to LibTorch's step, and programs linking the library.
#pragma once

#include <vector>

#include <torch/optim/optimizer.h>
#include <torch/types.h>

namespace dls::train {

enum class ClipKernels {
  kPerTensor,  // a norm and a multiplication per gradient
  kForeach,    // _foreach_norm over all of them, one scaling
};

// Multiplies every defined gradient by min(1, max_norm / (norm + 1e-6)), norm the 2-norm of
// all of them together; returns that norm as a 0-d tensor on their device (undefined when no
// parameter has a gradient). Equal to clip_grad_norm_ with norm type 2. Without `kernels`:
// kForeach on a GPU, kPerTensor on the CPU.
torch::Tensor clip_gradients(const std::vector<torch::Tensor>& parameters, double max_norm);
torch::Tensor clip_gradients(const std::vector<torch::Tensor>& parameters, double max_norm, ClipKernels kernels);
// Over every parameter of an optimizer's groups.
torch::Tensor clip_gradients(const std::vector<torch::optim::OptimizerParamGroup>& groups, double max_norm);

}  // namespace dls::train

// Optimizer construction shared by the seq2seq and ViT trainers, from the options a run's
// checkpoints record (settings/optimizer_settings.h).
#pragma once

#include <memory>
#include <vector>

#include <torch/optim/optimizer.h>
#include <torch/types.h>

#include "dls/settings/optimizer_settings.h"

namespace dls::train {

// lr is only the starting value: the trainers set it every step from their schedule. The
// optimizer clips the gradients to options.clip_grad_norm itself before each step (the
// caller does not clip): FusedAdam(W) in its own pass, LibTorch's through clip_gradients.
std::unique_ptr<torch::optim::Optimizer> make_optimizer(std::vector<torch::Tensor> parameters,
                                                        const settings::OptimizerSettings& options, double lr);

// Adam or AdamW as GraphSafeAdam(W) (optim/graph_safe_adam.h) over `parameters` whose grad()
// are the consecutive slices of `flat_gradients` (a GradientBuffer's), clipping to
// options.clip_grad_norm itself (the caller does not clip). The result is also a
// GraphSafeOptimizer (dynamic_cast).
std::unique_ptr<torch::optim::Optimizer> make_graph_safe_optimizer(std::vector<torch::Tensor> parameters,
                                                                   torch::Tensor flat_gradients,
                                                                   const settings::OptimizerSettings& options,
                                                                   double lr);

void set_learning_rate(torch::optim::Optimizer& optimizer, double lr);

}  // namespace dls::train

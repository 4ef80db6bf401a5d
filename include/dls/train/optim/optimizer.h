// Optimizer construction shared by the seq2seq and ViT trainers, from the options a run's
// checkpoints record (settings/optimizer_settings.h).
#pragma once

#include <memory>
#include <vector>

#include <torch/optim/optimizer.h>
#include <torch/types.h>

#include "dls/settings/optimizer_settings.h"

namespace dls::train {

class GradientBuffer;

// lr is only the starting value: the trainers set it every step from their schedule.
std::unique_ptr<torch::optim::Optimizer> make_optimizer(std::vector<torch::Tensor> parameters,
                                                        const settings::OptimizerSettings& options, double lr);

// Adam or AdamW as GraphSafeAdam(W) (optim/graph_safe_adam.h) over the parameters whose
// gradients `gradients` holds, clipping to options.clip_grad_norm itself (the caller does
// not clip). The result is also a GraphSafeOptimizer (dynamic_cast).
std::unique_ptr<torch::optim::Optimizer> make_graph_safe_optimizer(std::shared_ptr<GradientBuffer> gradients,
                                                                   const settings::OptimizerSettings& options,
                                                                   double lr);

void set_learning_rate(torch::optim::Optimizer& optimizer, double lr);

}  // namespace dls::train

// Optimizer construction shared by the seq2seq and ViT trainers, from the options a run's
// checkpoints record (checkpoint/optimizer_options.h).
#pragma once

#include <memory>
#include <vector>

#include <torch/optim/optimizer.h>
#include <torch/types.h>

#include "dls/checkpoint/optimizer_options.h"

namespace dls::train {

// lr is only the starting value: the trainers set it every step from their schedule.
std::unique_ptr<torch::optim::Optimizer> make_optimizer(std::vector<torch::Tensor> parameters,
                                                        const checkpoint::OptimizerOptions& options, double lr);

void set_learning_rate(torch::optim::Optimizer& optimizer, double lr);

}  // namespace dls::train

// An optimizer's state in a checkpoint as the model's weights are there: one entry per
// DLStudio-named parameter (layers/saved_tensors.h), so that each head's WQ/WK/WV has its
// own moments although the attention layers train them fused. Files written before the
// fusion resume, and files written now resume in earlier versions.
#pragma once

#include <string>

#include <torch/nn/module.h>
#include <torch/optim/optimizer.h>

#include "dls/checkpoint/checkpoint.h"

namespace dls::train {

// Adds `optimizer`'s state as section `name`. Where its parameters are not exactly `model`'s
// (one group or several, in order), it is added as it is.
void add_saved_optimizer(checkpoint::CheckpointWriter& writer, const std::string& name,
                         torch::optim::Optimizer& optimizer, const torch::nn::Module& model);

// Reads section `name` into `optimizer` (over `model`'s parameters), the inverse of
// add_saved_optimizer. Throws checkpoint::CheckpointError as CheckpointReader::load_optimizer.
void load_saved_optimizer(const checkpoint::CheckpointReader& reader, const std::string& name,
                          torch::optim::Optimizer& optimizer, const torch::nn::Module& model);

}  // namespace dls::train

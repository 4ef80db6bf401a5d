// Optimizer construction shared by the seq2seq and ViT trainers.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <torch/optim/optimizer.h>
#include <torch/types.h>

#include "dls/util/key_values.h"

namespace dls::train {

enum class OptimizerKind { kAdam, kAdamW };

struct OptimizerOptions {
  OptimizerKind kind = OptimizerKind::kAdam;
  double beta1 = 0.9;
  double beta2 = 0.98;
  double eps = 1e-6;
  double weight_decay = 0.0;    // AdamW: decoupled; Adam: L2 added to the gradient
  double clip_grad_norm = 0.0;  // > 0: clip the global gradient norm to this value
  // One pass per tensor (FusedAdam/FusedAdamW) instead of LibTorch's operator sequence;
  // the same update. Not saved: a choice of implementation, not of training.
  bool fused = true;

  util::KeyValues to_settings() const;
  static OptimizerOptions from_settings(const util::KeyValues& settings);
};

// lr is only the starting value: the trainers set it every step from their schedule.
std::unique_ptr<torch::optim::Optimizer> make_optimizer(std::vector<torch::Tensor> parameters,
                                                        const OptimizerOptions& options,
                                                        double lr);

void set_learning_rate(torch::optim::Optimizer& optimizer, double lr);

// "adam" / "adamw"; throws std::invalid_argument otherwise.
OptimizerKind parse_optimizer(const std::string& name);
std::string to_string(OptimizerKind kind);

}  // namespace dls::train

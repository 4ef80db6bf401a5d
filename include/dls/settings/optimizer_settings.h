// The optimizer a run trains with, as its checkpoints record it: Adam or AdamW, betas, eps,
// weight decay, gradient clipping. Building the optimizer is train/optim/optimizer.h.
#pragma once

#include <string>

#include "dls/util/key_values.h"

namespace dls::settings {

enum class OptimizerKind { kAdam, kAdamW };

struct OptimizerSettings {
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
  static OptimizerSettings from_settings(const util::KeyValues& settings);
};

// "adam" / "adamw"; throws std::invalid_argument otherwise.
OptimizerKind parse_optimizer(const std::string& name);
std::string to_string(OptimizerKind kind);

}  // namespace dls::settings

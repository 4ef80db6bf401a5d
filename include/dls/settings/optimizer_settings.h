// The optimizer a run trains with, as its checkpoints record it: Adam or AdamW, betas, eps,
// weight decay, gradient clipping. Building the optimizer is train/optim/optimizer.h.
#pragma once

#include <string>

#include "dls/util/declared.h"
#include "dls/util/key_values.h"
#include "dls/util/enum_names.h"

namespace dls::settings {

using util::read_saved_settings;
using util::saved_settings;
using util::Setting;

enum class OptimizerKind { kAdam, kAdamW };

inline const util::EnumNames<OptimizerKind> kOptimizerNames("optimizer", {{OptimizerKind::kAdam, "adam"},
                                                                          {OptimizerKind::kAdamW, "adamw"}});
// Throws std::invalid_argument listing the names.
inline OptimizerKind parse_optimizer(const std::string& name) { return kOptimizerNames.parse(name); }
inline std::string to_string(OptimizerKind kind) { return kOptimizerNames.name(kind); }

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

  template <typename Fields>
  static void declare(OptimizerSettings& s, Fields& f) {
    f.property(
        Setting("kind", "--optimizer", "adam or adamw").one_of(kOptimizerNames.names()),
        [&] { return to_string(s.kind); }, [&](const std::string& name) { s.kind = parse_optimizer(name); });
    f(s.beta1, Setting("beta1", "--beta1", "Adam beta1").range(0, 0.999999));
    f(s.beta2, Setting("beta2", "--beta2", "Adam beta2").range(0, 0.999999));
    f(s.eps, Setting("eps", "--eps", "Adam epsilon").range(1e-30, 1));
    f(s.weight_decay, Setting("weight_decay", "--weight-decay", "weight decay (AdamW: decoupled)").range(0, 10));
    f(s.clip_grad_norm,
      Setting("clip_grad_norm", "--clip-grad-norm", "clip the gradient norm to this (0: off)").range(0, 1000000));
  }
  util::KeyValues to_settings() const { return saved_settings(*this); }
  static OptimizerSettings from_settings(const util::KeyValues& settings) {
    OptimizerSettings read;
    read_saved_settings(settings, read);
    return read;
  }
};

}  // namespace dls::settings

#include "dls/settings/optimizer_settings.h"

#include <stdexcept>

namespace dls::settings {

util::KeyValues OptimizerSettings::to_settings() const {
  util::KeyValues settings;
  settings.set("kind", to_string(kind));
  settings.set("beta1", beta1);
  settings.set("beta2", beta2);
  settings.set("eps", eps);
  settings.set("weight_decay", weight_decay);
  settings.set("clip_grad_norm", clip_grad_norm);
  return settings;
}

OptimizerSettings OptimizerSettings::from_settings(const util::KeyValues& settings) {
  OptimizerSettings options;
  options.kind = parse_optimizer(settings.get("kind"));
  options.beta1 = settings.get_double("beta1");
  options.beta2 = settings.get_double("beta2");
  options.eps = settings.get_double("eps");
  options.weight_decay = settings.get_double("weight_decay");
  options.clip_grad_norm = settings.get_double("clip_grad_norm");
  return options;
}

OptimizerKind parse_optimizer(const std::string& name) {
  if (name == "adam") return OptimizerKind::kAdam;
  if (name == "adamw") return OptimizerKind::kAdamW;
  throw std::invalid_argument("unknown optimizer '" + name + "' (expected adam or adamw)");
}

std::string to_string(OptimizerKind kind) { return kind == OptimizerKind::kAdamW ? "adamw" : "adam"; }

}  // namespace dls::settings

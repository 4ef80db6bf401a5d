#include "dls/settings/optimizer_settings.h"

#include <stdexcept>

namespace dls::settings {

OptimizerKind parse_optimizer(const std::string& name) {
  if (name == "adam") return OptimizerKind::kAdam;
  if (name == "adamw") return OptimizerKind::kAdamW;
  throw std::invalid_argument("unknown optimizer '" + name + "' (expected adam or adamw)");
}

std::string to_string(OptimizerKind kind) { return kind == OptimizerKind::kAdamW ? "adamw" : "adam"; }

}  // namespace dls::settings

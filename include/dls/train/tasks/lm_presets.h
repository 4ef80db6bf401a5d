// The starting points of a language-model training run: data/presets/lm/NAME.toml
// (settings/builtin_presets.h).
#pragma once

#include <string>
#include <vector>

#include "dls/settings/lm_settings.h"

namespace dls::train {

// "cpu": a small PreLN decoder stack (M = 128, 3 blocks) that learns in minutes on 2 cores;
// "tiny": M = 32, one block, for smoke tests. Throws std::invalid_argument for another name.
settings::LmTrainSettings lm_preset(const std::string& name);
std::vector<std::string> lm_preset_names();

}  // namespace dls::train

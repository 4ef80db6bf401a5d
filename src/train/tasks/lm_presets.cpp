#include "dls/train/tasks/lm_presets.h"

#include "dls/settings/builtin_presets.h"

namespace dls::train {

settings::LmTrainSettings lm_preset(const std::string& name) {
  settings::LmTrainSettings s;
  settings::read_builtin_preset("lm", name, s);
  s.preset = name;
  return s;
}

std::vector<std::string> lm_preset_names() { return settings::builtin_preset_names("lm"); }

}  // namespace dls::train

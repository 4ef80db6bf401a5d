#include "dls/settings/builtin_presets.h"

#include <cstddef>

#include "settings/embedded_presets.h"

namespace dls::settings {

namespace {

// The files as strings, made once.
struct Preset {
  std::string task, name, text;
};
const std::vector<Preset>& presets() {
  static const std::vector<Preset> all = [] {
    std::vector<Preset> files;
    for (std::size_t i = 0; i < embedded::kPresetFileCount; ++i) {
      const auto& file = embedded::kPresetFiles[i];
      files.push_back({file.task, file.name, file.text});
    }
    return files;
  }();
  return all;
}

}  // namespace

const std::string* builtin_preset_text(const std::string& task, const std::string& name) {
  for (const auto& preset : presets()) {
    if (preset.task == task && preset.name == name) return &preset.text;
  }
  return nullptr;
}

std::vector<std::string> builtin_preset_names(const std::string& task) {
  std::vector<std::string> names;
  for (const auto& preset : presets()) {
    if (preset.task == task && preset.name.find('.') == std::string::npos) names.push_back(preset.name);
  }
  return names;
}

std::string builtin_preset_source(const std::string& task, const std::string& name) {
  return "data/presets/" + task + "/" + name + ".toml";
}

}  // namespace dls::settings

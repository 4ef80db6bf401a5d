#include "dls/train/tasks/vit_presets.h"

#include "dls/settings/builtin_presets.h"

namespace dls::train {

settings::ViTTrainSettings vit_preset(const std::string& name) {
  settings::ViTTrainSettings s;
  // "dataset": the dataset the preset is for (vit_train's --dataset, which chooses the preset).
  settings::read_builtin_preset("vit", name, s, [&s](const util::TomlItem& item) {
    if (item.name != "dataset" || item.values.size() != 1) return false;
    s.data.dataset = item.values.front();
    return true;
  });
  s.preset = name;
  s.adapt_model_to_dataset();
  return s;
}

std::string default_vit_preset(const std::string& dataset) { return dataset == "cifar10" ? "dlstudio" : "fashion"; }

std::vector<std::string> vit_preset_names() { return settings::builtin_preset_names("vit"); }

}  // namespace dls::train

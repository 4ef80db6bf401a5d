// The starting points of a visTransformer training run: data/presets/vit/NAME.toml
// (settings/builtin_presets.h), each naming the dataset it is for.
#pragma once

#include <string>
#include <vector>

#include "dls/settings/vit_settings.h"

namespace dls::train {

// "dlstudio": DLStudio's CIFAR-10 example; "fashion": the Fashion-MNIST preset tuned for a
// 2-core CPU; the model adapted to the preset's dataset (adapt_model_to_dataset).
// Throws std::invalid_argument for another name.
settings::ViTTrainSettings vit_preset(const std::string& name);
// The preset used when none is named: "dlstudio" for cifar10, "fashion" otherwise.
std::string default_vit_preset(const std::string& dataset);
std::vector<std::string> vit_preset_names();

}  // namespace dls::train

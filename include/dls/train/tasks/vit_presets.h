// The starting points of a visTransformer training run.
#pragma once

#include <string>
#include <vector>

#include "dls/settings/vit_settings.h"

namespace dls::train {

// "dlstudio": DLStudio's CIFAR-10 example (see vit_presets.cpp);
// "fashion": the Fashion-MNIST preset tuned for a 2-core CPU.
// Throws std::invalid_argument for another name.
settings::ViTTrainSettings vit_preset(const std::string& name);
// The preset used when none is named: "dlstudio" for cifar10, "fashion" otherwise.
std::string default_vit_preset(const std::string& dataset);
std::vector<std::string> vit_preset_names();

}  // namespace dls::train

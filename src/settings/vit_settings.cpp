// ViTTrainSettings: checkpoint settings, start-up description.
#include "dls/settings/vit_settings.h"

#include <stdexcept>

namespace dls::settings {

using util::describe_settings;
using util::read_saved_settings;

ViTTrainSettings ViTTrainSettings::from_settings(const util::KeyValues& s) {
  ViTTrainSettings settings;
  settings.run.run_dir.clear();  // a checkpoint's run is where it is
  read_saved_settings(s, settings);
  // Checkpoints of 2026-11-22/23: stem_layers stride-1 layers of stem_channels channels.
  if (!s.has("model.stem") && s.has("model.stem_channels")) {
    const auto channels = s.get_int("model.stem_channels");
    if (channels > 0) settings.model.stem(StemSpec(s.get_int("model.stem_layers"), StemConv{channels, 1}));
  }
  return settings;
}

void ViTTrainSettings::adapt_model_to_dataset() {
  if (data.dataset == "cifar10") {
    model.image_size(32).channels(3).num_classes(10);
  } else if (data.dataset == "fashion-mnist") {
    model.image_size(28).channels(1).num_classes(10);
  } else if (data.dataset == "image-folder") {
    const auto classes = data::list_image_folder(data.data_dir).class_names.size();
    model.image_size(data.image_size).channels(data.channels).num_classes(static_cast<int>(classes));
  } else {
    throw std::invalid_argument("unknown dataset '" + data.dataset +
                                "' (expected cifar10, fashion-mnist or image-folder)");
  }
}

std::string ViTTrainSettings::describe() const {
  std::string text = "preset " + preset + "; model " + model.summary();
  for (const auto& line : describe_settings(*this)) text += "\n" + line;
  return text;
}

void ViTTrainSettings::check_image_flags(const ViTTrainSettings& preset) const {
  if (data.dataset == "image-folder") return;
  if (data.image_size != preset.data.image_size) throw std::runtime_error("--image-size: only for an image folder");
  if (data.channels != preset.data.channels) throw std::runtime_error("--channels: only for an image folder");
}

}  // namespace dls::settings

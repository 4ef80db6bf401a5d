// ViTTrainSettings: checkpoint settings, start-up description.
#include "dls/settings/vit_settings.h"

#include <stdexcept>

namespace dls::settings {

util::KeyValues ViTTrainSettings::to_settings() const {
  util::KeyValues s;
  s.merge(model.to_settings(), "model");
  s.merge(saved_settings(*this));
  return s;
}

ViTTrainSettings ViTTrainSettings::from_settings(const util::KeyValues& s) {
  ViTTrainSettings settings;
  settings.model = ViTConfig::from_settings(s.section("model"));
  settings.run.run_dir.clear();  // a checkpoint's run is where it is
  read_saved_settings(s, settings);
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

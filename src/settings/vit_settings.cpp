// ViTTrainSettings: checkpoint settings, start-up description.
#include "dls/settings/vit_settings.h"

#include <optional>
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

namespace {

struct DatasetImages {
  int size, channels;
};

// The datasets' own images; none for an image folder (its flags say).
std::optional<DatasetImages> images_of_dataset(const std::string& dataset) {
  if (dataset == "cifar10") return DatasetImages{32, 3};
  if (dataset == "fashion-mnist") return DatasetImages{28, 1};
  if (dataset == "image-folder") return std::nullopt;
  throw std::invalid_argument("unknown dataset '" + dataset + "' (expected cifar10, fashion-mnist or image-folder)");
}

}  // namespace

void ViTTrainSettings::take_model_of(const ViTTrainSettings& parent) {
  model = parent.model;
  data.image_size = parent.model.image_size();
  data.channels = parent.model.channels();
  data.normalization = parent.data.normalization;
}

void ViTTrainSettings::adapt_model_to_dataset() {
  if (const auto own = images_of_dataset(data.dataset)) {
    model.image_size(own->size).channels(own->channels).num_classes(10);
  } else {
    const auto classes = data::list_image_folder(data.data_dir).class_names.size();
    model.image_size(data.image_size).channels(data.channels).num_classes(static_cast<int>(classes));
  }
}

void ViTTrainSettings::show_dataset_images() {
  if (const auto own = images_of_dataset(data.dataset)) {
    data.image_size = own->size;
    data.channels = own->channels;
  }
}

std::string ViTTrainSettings::describe() const {
  std::string text = "preset " + preset + "; model " + model.summary();
  for (const auto& line : describe_settings(*this)) text += "\n" + line;
  return text;
}

void ViTTrainSettings::check_image_flags(bool size_typed, bool channels_typed) const {
  const auto own = images_of_dataset(data.dataset);
  if (!own) return;
  const std::string theirs = " (" + data.dataset + "'s images are " + std::to_string(own->size) + "x" +
                             std::to_string(own->size) + "x" + std::to_string(own->channels) + ")";
  if (size_typed && data.image_size != own->size) {
    throw std::runtime_error("--image-size: only for an image folder" + theirs);
  }
  if (channels_typed && data.channels != own->channels) {
    throw std::runtime_error("--channels: only for an image folder" + theirs);
  }
}

}  // namespace dls::settings

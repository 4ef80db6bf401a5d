#include "dls/checkpoint/vit_checkpoint.h"

#include <sstream>

#include <torch/torch.h>

#include "dls/checkpoint/checkpoint_files.h"
#include "dls/data/image_dataset.h"
#include "dls/checkpoint/rng_state.h"

namespace dls::checkpoint {

namespace {

std::string join_floats(const std::vector<float>& values) {
  std::ostringstream out;
  out.precision(9);
  for (std::size_t i = 0; i < values.size(); ++i) out << (i ? "," : "") << values[i];
  return out.str();
}

std::vector<float> split_floats(const std::string& text, const std::string& key) {
  std::vector<float> values;
  std::istringstream in(text);
  for (std::string item; std::getline(in, item, ',');) {
    try {
      std::size_t used = 0;
      values.push_back(std::stof(item, &used));
      if (used != item.size()) throw std::invalid_argument(item);
    } catch (const std::exception&) {
      throw std::runtime_error("setting '" + key + "' = '" + text + "' is not a list of numbers");
    }
  }
  return values;
}

}  // namespace

void describe_vit_checkpoint(CheckpointWriter& writer, const ViTCheckpointContents& contents) {
  util::KeyValues settings = contents.settings.to_settings();
  util::KeyValues norm;
  norm.set("mean", join_floats(contents.normalization.mean));
  norm.set("std", join_floats(contents.normalization.std));
  settings.merge(norm, "normalization");
  settings.set("evaluation.test_accuracy", contents.test_accuracy);
  settings.set("evaluation.val_accuracy", contents.val_accuracy);
  writer.add_settings(settings);
  if (!contents.class_names.empty()) {
    std::string names;
    for (const auto& name : contents.class_names) names += name + "\n";
    writer.add_text("class_names", names);
    writer.add_text("image_files", contents.image_files);
    if (contents.pixel_digest != 0) writer.add_text("image_pixels", std::to_string(contents.pixel_digest));
  }
}

void write_vit_checkpoint(const std::string& path, const ViTCheckpointContents& contents, const visTransformer& model,
                          const torch::optim::Optimizer* optimizer) {
  CheckpointWriter writer(kViTCheckpointKind);
  describe_vit_checkpoint(writer, contents);
  describe_run_state(writer, contents.state);
  writer.add_module("model", *model);
  if (optimizer != nullptr) writer.add_optimizer("optimizer", *optimizer);
  writer.add_tensor("rng", cpu_generator_state());
  writer.save(path);
}

ViTCheckpointContents read_vit_contents(const CheckpointReader& reader) {
  try {
    util::KeyValues all = reader.settings();
    ViTCheckpointContents contents;
    contents.settings = settings::ViTTrainSettings::from_settings(all);
    const auto norm = all.section("normalization");
    contents.normalization.mean = split_floats(norm.get("mean"), "normalization.mean");
    contents.normalization.std = split_floats(norm.get("std"), "normalization.std");
    contents.state = RunState::from_settings(all);
    contents.test_accuracy = latest_evaluation(all, "test_accuracy", "state.test_accuracy", -1);
    // A file from before the validation split has none.
    contents.val_accuracy = latest_evaluation(all, "val_accuracy", "state.val_accuracy", -1);
    contents.settings.model.validate();
    if (reader.has_text("class_names")) {
      const auto names = reader.text("class_names");
      for (std::size_t at = 0, end; (end = names.find('\n', at)) != std::string::npos; at = end + 1) {
        contents.class_names.push_back(names.substr(at, end - at));
      }
      contents.image_files = reader.text("image_files");
      if (reader.has_text("image_pixels")) contents.pixel_digest = std::stoull(reader.text("image_pixels"));
    }
    return contents;
  } catch (...) {
    rethrow_naming_file(reader);
  }
}

settings::ViTTrainSettings read_vit_settings(const std::string& dir_or_file) {
  const CheckpointReader reader(latest_checkpoint(dir_or_file), kViTCheckpointKind);
  return read_vit_contents(reader).settings;
}

visTransformer load_vit_model(const CheckpointReader& reader, const settings::ViTTrainSettings& settings,
                              Weights weights) {
  visTransformer model(settings.model);
  reader.load_module(weights_module(reader, weights), *model);
  return model;
}

std::vector<std::string> class_names_of(const ViTCheckpointContents& contents) {
  if (!contents.class_names.empty()) return contents.class_names;  // an image folder's
  const auto& names =
      contents.settings.data.dataset == "cifar10" ? data::cifar10_class_names() : data::fashion_mnist_class_names();
  const auto classes = static_cast<std::size_t>(contents.settings.model.num_classes());
  return names.size() == classes ? names : std::vector<std::string>{};
}

}  // namespace dls::checkpoint

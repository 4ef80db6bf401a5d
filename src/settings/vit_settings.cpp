// ViTTrainSettings: checkpoint settings, start-up description.
#include "dls/settings/vit_settings.h"

#include <sstream>
#include <stdexcept>

namespace dls::settings {

namespace {

util::KeyValues data_settings(const data::ViTDataSettings& data) {
  util::KeyValues s;
  s.set("dataset", data.dataset);
  s.set("data_dir", data.data_dir);
  s.set("train_subset", static_cast<std::int64_t>(data.train_subset));
  s.set("test_subset", static_cast<std::int64_t>(data.test_subset));
  s.set("validation_fraction", data.validation_fraction);
  s.set("split_seed", std::to_string(data.split_seed));
  s.set("normalization", data.normalization);
  s.set("augment_pad", data.augment.pad);
  s.set("augment_flip", data.augment.flip);
  s.set("augment_erase", data.augment.erase);
  return s;
}

data::ViTDataSettings data_from_settings(const util::KeyValues& s) {
  data::ViTDataSettings data;
  data.dataset = s.get("dataset");
  data.data_dir = s.get("data_dir");
  data.train_subset = static_cast<std::size_t>(s.get_int("train_subset"));
  data.test_subset = static_cast<std::size_t>(s.get_int("test_subset"));
  // Checkpoints written before the validation split trained on every training image.
  data.validation_fraction = s.has("validation_fraction") ? s.get_double("validation_fraction") : 0.0;
  if (s.has("split_seed")) data.split_seed = std::stoull(s.get("split_seed"));
  data.normalization = s.get("normalization");
  data.augment.pad = static_cast<int>(s.get_int("augment_pad"));
  data.augment.flip = s.get_bool("augment_flip");
  // Checkpoints written before random erasing existed did not erase.
  if (s.has("augment_erase")) data.augment.erase = s.get_double("augment_erase");
  return data;
}

}  // namespace

util::KeyValues ViTTrainSettings::to_settings() const {
  util::KeyValues s;
  s.merge(model.to_settings(), "model");
  s.merge(data_settings(data), "data");
  s.merge(optimizer.to_settings(), "optimizer");
  util::KeyValues t;
  t.set("preset", preset);
  t.set("batch_size", static_cast<std::int64_t>(batch_size));
  t.set("epochs", epochs);
  t.set("schedule", to_string(schedule));
  t.set("lr", lr);
  t.set("min_lr", min_lr);
  t.set("warmup_epochs", warmup_epochs);
  t.set("label_smoothing", label_smoothing);
  t.set("seed", std::to_string(seed));
  s.merge(t, "train");
  s.merge(selection.to_settings(), "selection");
  s.merge(run.to_settings(), "run");
  return s;
}

ViTTrainSettings ViTTrainSettings::from_settings(const util::KeyValues& s) {
  ViTTrainSettings settings;
  settings.model = ViTConfig::from_settings(s.section("model"));
  settings.data = data_from_settings(s.section("data"));
  settings.optimizer = OptimizerSettings::from_settings(s.section("optimizer"));
  const auto t = s.section("train");
  settings.preset = t.get("preset");
  settings.batch_size = static_cast<std::size_t>(t.get_int("batch_size"));
  settings.epochs = t.get_int("epochs");
  settings.schedule = parse_schedule(t.get("schedule"));
  settings.lr = t.get_double("lr");
  settings.min_lr = t.get_double("min_lr");
  settings.warmup_epochs = t.get_double("warmup_epochs");
  settings.label_smoothing = t.get_double("label_smoothing");
  settings.seed = std::stoull(t.get("seed"));
  settings.selection = SelectionSettings::from_settings(s.section("selection"), settings.selection);
  settings.run = RunSettings::from_settings(s.section("run"), settings.run);  // older checkpoints: none
  return settings;
}

void ViTTrainSettings::adapt_model_to_dataset() {
  if (data.dataset == "cifar10") {
    model.image_size(32).channels(3).num_classes(10);
  } else if (data.dataset == "fashion-mnist") {
    model.image_size(28).channels(1).num_classes(10);
  } else {
    throw std::invalid_argument("unknown dataset '" + data.dataset + "' (expected cifar10 or fashion-mnist)");
  }
}

std::string ViTTrainSettings::describe() const {
  std::ostringstream out;
  out << "preset " << preset << "; model " << model.summary() << "\n"
      << "data " << data.dataset << (data.data_dir.empty() ? "" : " from " + data.data_dir) << ", normalisation "
      << data.normalization << ", augmentation pad=" << data.augment.pad
      << " flip=" << (data.augment.flip ? "on" : "off") << " erase=" << data.augment.erase;
  if (data.train_subset > 0) out << ", train subset " << data.train_subset;
  if (data.test_subset > 0) out << ", test subset " << data.test_subset;
  out << ", validation " << data.validation_fraction << " of the training images (split seed " << data.split_seed
      << ")";
  out << "\n"
      << "optimizer " << to_string(optimizer.kind) << " lr=" << lr << " betas=" << optimizer.beta1 << "/"
      << optimizer.beta2 << " eps=" << optimizer.eps << " weight_decay=" << optimizer.weight_decay
      << " clip=" << optimizer.clip_grad_norm << "; schedule " << to_string(schedule);
  if (schedule == ScheduleKind::kWarmupCosine) {
    out << " (warm-up " << warmup_epochs << " epochs, min_lr " << min_lr << ")";
  }
  out << "; batch " << batch_size << ", " << epochs << " epochs, label smoothing " << label_smoothing << ", seed "
      << seed;
  return out.str();
}

}  // namespace dls::settings

// ViTTrainSettings: checkpoint settings, start-up description.
#include "dls/settings/vit_settings.h"

#include <sstream>
#include <stdexcept>

namespace dls::settings {

util::KeyValues ViTTrainSettings::to_settings() const {
  util::KeyValues s;
  s.merge(model.to_settings(), "model");
  const auto saved = saved_settings(*this);
  for (const auto& [key, value] : saved.entries()) s.set(key, value);
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

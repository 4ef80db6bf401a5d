#include "dls/train/tasks/seq2seq_presets.h"

#include <stdexcept>

#include "dls/data/vocabulary.h"
#include "dls/util/device.h"

namespace dls::train {

using settings::OptimizerKind;
using settings::ScheduleKind;

settings::Seq2SeqTrainSettings seq2seq_preset(const std::string& name, Variant variant) {
  settings::Seq2SeqTrainSettings preset;
  auto& model = preset.model;
  model.pad_index(data::Vocabulary::kPad);
  if (name == "dlstudio") {
    model.transformer()
        .variant(variant)
        .layout(Layout::kDLStudio)
        .embedding_size(256)
        .num_heads(4)
        .max_seq_length(10)
        .dropout(0.0);
    model.num_encoders(4).num_decoders(4);
    preset.batch_size = 50;
    preset.epochs = 40;
    preset.run.checkpoint_every = 5;
    preset.optimizer.beta1 = 0.9;
    preset.optimizer.beta2 = 0.98;
    preset.optimizer.eps = 1e-6;
    if (variant == Variant::kFG) {
      preset.schedule.kind = settings::ScheduleKind::kDLStudioWarmup;
      preset.schedule.warmup_steps = 4000;
      preset.schedule.embedding_size = 256;
    } else {
      preset.schedule.kind = settings::ScheduleKind::kConstant;
      preset.schedule.base_lr = 1e-5;
      preset.optimizer.beta2 = 0.999;
      preset.optimizer.eps = 1e-8;
    }
    return preset;
  }
  if (name == "cpu") {
    model.transformer()
        .variant(variant)
        .layout(Layout::kVaswani)
        .embedding_size(256)
        .num_heads(4)
        .max_seq_length(10)
        .ffn_multiplier(4)
        .dropout(0.1);
    model.num_encoders(3).num_decoders(3);
    preset.batch_size = 64;
    preset.epochs = 8;
    preset.run.checkpoint_every = 1;
    preset.optimizer.kind = settings::OptimizerKind::kAdamW;
    preset.optimizer.beta1 = 0.9;
    preset.optimizer.beta2 = 0.98;
    preset.optimizer.eps = 1e-9;
    preset.optimizer.weight_decay = 0.01;
    preset.optimizer.clip_grad_norm = 1.0;
    preset.schedule.kind = settings::ScheduleKind::kWarmupCosine;
    preset.schedule.base_lr = 1e-3;
    preset.schedule.warmup_steps = 1000;
    preset.schedule.min_lr = 1e-5;
    preset.label_smoothing = 0.1;
    preset.run.log_every = 200;
    return preset;
  }
  throw std::invalid_argument("unknown preset '" + name + "' (expected dlstudio or cpu)");
}

PresetChoice default_seq2seq_preset(const std::string& device) {
  if (device == "cpu" || (device == "auto" && util::visible_gpus_for(device) == 0)) {
    return {"cpu",
            "the default on a CPU (--preset dlstudio: DLStudio's example, whose 40 epochs of a model of "
            "hundreds of millions of parameters take days on a CPU)"};
  }
  return {"dlstudio", "the default on a GPU: DLStudio's example (--preset cpu: the small recipe)"};
}

}  // namespace dls::train

#include "dls/train/tasks/seq2seq_presets.h"

#include <stdexcept>

#include "dls/data/vocabulary.h"

namespace dls::train {

using settings::OptimizerKind;
using settings::ScheduleKind;

Seq2SeqPreset seq2seq_preset(const std::string& name, Variant variant) {
  Seq2SeqPreset preset;
  auto& model = preset.model;
  auto& training = preset.training;
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
    training.batch_size = 50;
    training.epochs = 40;
    training.run.checkpoint_every = 5;
    training.optimizer.beta1 = 0.9;
    training.optimizer.beta2 = 0.98;
    training.optimizer.eps = 1e-6;
    if (variant == Variant::kFG) {
      training.schedule.kind = settings::ScheduleKind::kDLStudioWarmup;
      training.schedule.warmup_steps = 4000;
      training.schedule.embedding_size = 256;
    } else {
      training.schedule.kind = settings::ScheduleKind::kConstant;
      training.schedule.base_lr = 1e-5;
      training.optimizer.beta2 = 0.999;
      training.optimizer.eps = 1e-8;
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
    training.batch_size = 64;
    training.epochs = 8;
    training.run.checkpoint_every = 1;
    training.optimizer.kind = settings::OptimizerKind::kAdamW;
    training.optimizer.beta1 = 0.9;
    training.optimizer.beta2 = 0.98;
    training.optimizer.eps = 1e-9;
    training.optimizer.weight_decay = 0.01;
    training.optimizer.clip_grad_norm = 1.0;
    training.schedule.kind = settings::ScheduleKind::kWarmupCosine;
    training.schedule.base_lr = 1e-3;
    training.schedule.warmup_steps = 1000;
    training.schedule.min_lr = 1e-5;
    training.label_smoothing = 0.1;
    training.run.log_every = 200;
    return preset;
  }
  throw std::invalid_argument("unknown preset '" + name + "' (expected dlstudio or cpu)");
}

}  // namespace dls::train

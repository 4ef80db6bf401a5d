#include "dls/train/tasks/lm_presets.h"

#include <stdexcept>

namespace dls::train {

using settings::OptimizerKind;
using settings::ScheduleKind;

settings::LmTrainSettings lm_preset(const std::string& name) {
  settings::LmTrainSettings s;
  s.preset = name;
  s.model.transformer().variant(Variant::kPreLN).layout(Layout::kVaswani).ffn_multiplier(4);
  s.optimizer.kind = settings::OptimizerKind::kAdamW;
  s.optimizer.beta1 = 0.9;
  s.optimizer.beta2 = 0.98;
  s.optimizer.eps = 1e-9;
  s.optimizer.weight_decay = 0.01;
  s.optimizer.clip_grad_norm = 1.0;
  s.schedule = settings::ScheduleKind::kWarmupCosine;
  if (name == "cpu") {
    s.model.transformer().embedding_size(128).num_heads(4).dropout(0.1);
    s.model.num_decoders(3);
    s.batch_size = 64;
    s.epochs = 4;
    s.lr = 1e-3;
    s.min_lr = 1e-5;
    s.warmup_steps = 500;
    return s;
  }
  if (name == "tiny") {
    s.model.transformer().embedding_size(32).num_heads(2).dropout(0.0);
    s.model.num_decoders(1);
    s.batch_size = 16;
    s.epochs = 2;
    s.lr = 3e-3;
    s.min_lr = 1e-4;
    s.warmup_steps = 10;
    return s;
  }
  throw std::invalid_argument("unknown preset '" + name + "' (expected cpu or tiny)");
}

std::vector<std::string> lm_preset_names() { return {"cpu", "tiny"}; }

}  // namespace dls::train

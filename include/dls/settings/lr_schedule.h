// Learning-rate schedules, as a function of the optimizer step (1, 2, ...).
#pragma once

#include <cstdint>
#include <string>

namespace dls::settings {

enum class ScheduleKind {
  kConstant,        // base_lr throughout (DLStudio's PreLN: plain Adam)
  kDLStudioWarmup,  // DLStudio's FG: 2 * M^-0.5 * min(step^-0.5, step * warmup^-1.5)
  kWarmupCosine,    // linear warm-up to base_lr, then cosine decay to min_lr at total_steps
};

struct LrSchedule {
  ScheduleKind kind = ScheduleKind::kConstant;
  double base_lr = 1e-4;              // kConstant, kWarmupCosine (peak)
  std::int64_t warmup_steps = 4000;   // kDLStudioWarmup, kWarmupCosine
  std::int64_t total_steps = 0;       // kWarmupCosine: end of the decay
  double min_lr = 0.0;                // kWarmupCosine: floor after the decay
  std::int64_t embedding_size = 256;  // kDLStudioWarmup: M

  // Learning rate for optimizer step `step` >= 1.
  double at(std::int64_t step) const;
  // kWarmupCosine after the warm-up: the rate at `progress` (0 to 1) of the cosine decay.
  double decayed(double progress) const;
};

// "constant", "dlstudio-warmup", "cosine"; throws std::invalid_argument otherwise.
ScheduleKind parse_schedule(const std::string& name);
std::string to_string(ScheduleKind kind);

}  // namespace dls::settings

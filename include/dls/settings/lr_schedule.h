// Learning-rate schedules, as a function of the optimizer step (1, 2, ...).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "dls/util/declared.h"
#include "dls/util/enum_names.h"

namespace dls::settings {

using util::Setting;

enum class ScheduleKind {
  kConstant,        // base_lr throughout (DLStudio's PreLN: plain Adam)
  kDLStudioWarmup,  // DLStudio's FG: 2 * M^-0.5 * min(step^-0.5, step * warmup^-1.5)
  kWarmupCosine,    // linear warm-up to base_lr, then cosine decay to min_lr at total_steps
};

inline const util::EnumNames<ScheduleKind> kScheduleNames("schedule",
                                                          {{ScheduleKind::kConstant, "constant"},
                                                           {ScheduleKind::kDLStudioWarmup, "dlstudio-warmup"},
                                                           {ScheduleKind::kWarmupCosine, "cosine"}});
// Throws std::invalid_argument listing the names.
inline ScheduleKind parse_schedule(const std::string& name) { return kScheduleNames.parse(name); }
inline std::string to_string(ScheduleKind kind) { return kScheduleNames.name(kind); }

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
  // Throws std::invalid_argument for a cosine whose final rate (--min-lr) is above its peak
  // (--lr): its "decay" would climb.
  void check() const;
  // The flags of these settings that this kind does not read, each with why: a program refuses
  // one typed on the command line (it would be printed, saved and ignored).
  std::vector<std::pair<std::string, std::string>> unread_flags() const;

  template <typename Fields>
  static void declare(LrSchedule& s, Fields& f) {
    f.property(
        Setting("kind", "--schedule", "constant, dlstudio-warmup (2 M^-0.5 min(s^-0.5, s w^-1.5)) or cosine")
            .one_of(kScheduleNames.names()),
        [&] { return to_string(s.kind); }, [&](const std::string& name) { s.kind = parse_schedule(name); });
    f(s.base_lr, Setting("base_lr", "--lr", "learning rate (constant) or peak (cosine)").range(1e-12, 100));
    f(s.warmup_steps,
      Setting("warmup_steps", "--warmup", "warm-up steps (dlstudio-warmup, cosine)").range(0, 1000000000));
    f(s.total_steps, Setting("total_steps", "", ""));
    f(s.min_lr, Setting("min_lr", "--min-lr", "cosine: final learning rate").range(0, 100));
    f(s.embedding_size, Setting("embedding_size", "", ""));
  }
};

}  // namespace dls::settings

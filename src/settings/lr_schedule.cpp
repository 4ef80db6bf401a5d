#include "dls/settings/lr_schedule.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "dls/util/toml_subset.h"

namespace dls::settings {

double LrSchedule::at(std::int64_t step) const {
  const double s = static_cast<double>(std::max<std::int64_t>(step, 1));
  switch (kind) {
    case ScheduleKind::kConstant:
      return base_lr;
    case ScheduleKind::kDLStudioWarmup: {
      const double warmup = static_cast<double>(std::max<std::int64_t>(warmup_steps, 1));
      return 2.0 / std::sqrt(static_cast<double>(embedding_size)) *
             std::min(1.0 / std::sqrt(s), s * std::pow(warmup, -1.5));
    }
    case ScheduleKind::kWarmupCosine: {
      if (warmup_steps > 0 && s <= static_cast<double>(warmup_steps)) {
        return base_lr * s / static_cast<double>(warmup_steps);
      }
      const double span = static_cast<double>(std::max<std::int64_t>(total_steps - warmup_steps, 1));
      return decayed(std::min(1.0, (s - static_cast<double>(warmup_steps)) / span));
    }
  }
  return base_lr;
}

double LrSchedule::decayed(double progress) const {
  return min_lr + 0.5 * (base_lr - min_lr) * (1.0 + std::cos(M_PI * progress));
}

void LrSchedule::check() const {
  if (kind == ScheduleKind::kWarmupCosine && min_lr > base_lr) {
    throw std::invalid_argument("--min-lr " + util::toml_value(min_lr) + " is above --lr " + util::toml_value(base_lr) +
                                ", the cosine's peak: its decay would climb; give a --min-lr below --lr");
  }
}

std::vector<std::pair<std::string, std::string>> LrSchedule::unread_flags() const {
  switch (kind) {
    case ScheduleKind::kConstant:
      return {
          {"--min-lr", "not read by --schedule constant, which keeps --lr throughout; for a decay: --schedule cosine"}};
    case ScheduleKind::kDLStudioWarmup: {
      const std::string why =
          "not read by --schedule dlstudio-warmup, whose rate is 2 M^-0.5 min(s^-0.5, s w^-1.5) (the model's width M, "
          "--warmup w); for a rate of your own: --schedule constant or cosine";
      return {{"--lr", why}, {"--min-lr", why}};
    }
    case ScheduleKind::kWarmupCosine:
      break;
  }
  return {};
}

}  // namespace dls::settings

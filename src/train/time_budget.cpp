#include "dls/train/time_budget.h"

#include <algorithm>
#include <cmath>

namespace dls::train {

TimeBudget::TimeBudget(const TimeBudgetOptions& options, std::int64_t planned_end_step)
    : options_(options), end_step_(std::min(planned_end_step, options.epochs_end_step)) {}

double TimeBudget::seconds_per_epoch_end() const {
  return epoch_ends_ > 0 ? epoch_ends_s_ / static_cast<double>(epoch_ends_) : 0.0;
}

bool TimeBudget::step_done(std::int64_t global_step, double started_s, double ended_s) {
  steps_seen_ += 1;
  // The gap after an epoch's last step is its evaluation and checkpoint; other gaps (batch
  // assembly, logging) count as step time.
  const bool after_epoch_end = steps_seen_ > 1 && (global_step - 1) % options_.steps_per_epoch == 0;
  if (after_epoch_end) {
    const double gap = std::max(0.0, started_s - last_ended_s_);
    epoch_ends_s_ += gap;
    epoch_ends_ += 1;
    window_epoch_ends_s_ += gap;
  }
  last_ended_s_ = ended_s;
  if (steps_seen_ <= options_.skipped_steps) {
    window_step_ = global_step;
    window_s_ = ended_s;
    window_epoch_ends_s_ = 0;
    return false;
  }
  const std::int64_t window = global_step - window_step_;
  if (window < (seconds_per_step_ > 0 ? options_.reestimate_every : options_.measured_steps)) return false;
  seconds_per_step_ = std::max(1e-9, (ended_s - window_s_ - window_epoch_ends_s_) / static_cast<double>(window));
  window_step_ = global_step;
  window_s_ = ended_s;
  window_epoch_ends_s_ = 0;
  const std::int64_t before = end_step_;
  end_step_ = steps_fitting(global_step, options_.limit_s - ended_s);
  return end_step_ != before;
}

std::int64_t TimeBudget::steps_fitting(std::int64_t global_step, double seconds) const {
  const std::int64_t end = options_.epochs_end_step;
  if (seconds_per_step_ <= 0) return end;
  std::int64_t step = global_step;
  double left = seconds;
  // Epoch by epoch: the steps to the epoch's end, then its evaluation's cost.
  while (left > 0 && step < end) {
    const std::int64_t epoch_end = std::min(end, (step / options_.steps_per_epoch + 1) * options_.steps_per_epoch);
    const double to_epoch_end = static_cast<double>(epoch_end - step) * seconds_per_step_;
    if (left < to_epoch_end) {
      step += static_cast<std::int64_t>(std::floor(left / seconds_per_step_));
      break;
    }
    left -= to_epoch_end + seconds_per_epoch_end();
    step = epoch_end;
  }
  return std::min(std::max(step, global_step), end);
}

double TimeBudget::seconds_to(std::int64_t global_step, std::int64_t end_step) const {
  if (end_step <= global_step) return 0.0;
  // Epoch ends strictly after `global_step` and before `end_step`: each is an evaluation.
  const std::int64_t epoch_ends = (end_step - 1) / options_.steps_per_epoch - global_step / options_.steps_per_epoch;
  return static_cast<double>(end_step - global_step) * seconds_per_step_ +
         static_cast<double>(std::max<std::int64_t>(0, epoch_ends)) * seconds_per_epoch_end();
}

}  // namespace dls::train

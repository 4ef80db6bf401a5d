// Training to a time budget (--time-limit): the step at which a decaying learning-rate
// schedule should end so that the run reaches the end of its decay when its time is up,
// instead of being cut off near the peak rate. Laid out from the measured seconds per step
// once a few steps are measured, and re-estimated as the run goes. The evaluation and
// checkpoint after each epoch eat the budget too: their mean cost is counted once for
// every epoch end still ahead. Plain arithmetic on the wall seconds it is given (tests
// drive it with a fake clock).
#pragma once

#include <cstdint>

namespace dls::train {

struct TimeBudgetOptions {
  double limit_s = 0;                  // the whole run's budget, wall seconds of all invocations
  std::int64_t epochs_end_step = 1;    // the epochs' own schedule end: never laid out beyond it
  std::int64_t steps_per_epoch = 1;    // an evaluation (and checkpoint) follows each epoch's last step
  std::int64_t skipped_steps = 3;      // an invocation's first steps are slow (allocations): not measured
  std::int64_t measured_steps = 10;    // steps measured before the first estimate
  std::int64_t reestimate_every = 50;  // steps between later estimates (each from the latest ones)
};

class TimeBudget {
 public:
  // `planned_end_step`: the end followed until the first estimate (a resumed run's stored
  // plan, else the epochs' end).
  TimeBudget(const TimeBudgetOptions& options, std::int64_t planned_end_step);

  // Optimizer step `global_step` ran from run second `started_s` to `ended_s` (the run's
  // wall clock: all invocations, data loading included). True when it re-estimated the end.
  bool step_done(std::int64_t global_step, double started_s, double ended_s);

  std::int64_t end_step() const { return end_step_; }
  double seconds_per_step() const { return seconds_per_step_; }  // 0 until measured
  double seconds_per_epoch_end() const;                          // 0 until one is seen
  double limit_s() const { return options_.limit_s; }

  // Where `seconds` more of the run, from step `global_step`, end: the steps that fit at
  // the measured rate with each epoch end's cost taken from them, capped by the epochs' end.
  std::int64_t steps_fitting(std::int64_t global_step, double seconds) const;
  // The estimated seconds from step `global_step` to `end_step`: the steps at the measured
  // rate plus each epoch end's cost on the way (0 until measured).
  double seconds_to(std::int64_t global_step, std::int64_t end_step) const;
  // The epochs' own end (TimeBudgetOptions::epochs_end_step).
  std::int64_t epochs_end_step() const { return options_.epochs_end_step; }

 private:
  TimeBudgetOptions options_;
  std::int64_t end_step_;
  std::int64_t steps_seen_ = 0;     // this invocation's
  std::int64_t window_step_ = -1;   // the step the current measurement window starts after
  double window_s_ = 0;             // its end time
  double window_epoch_ends_s_ = 0;  // epoch ends' time inside the window (not step time)
  double last_ended_s_ = 0;
  double seconds_per_step_ = 0;
  double epoch_ends_s_ = 0;  // Σ seconds between an epoch's last step and the next step
  std::int64_t epoch_ends_ = 0;
};

}  // namespace dls::train

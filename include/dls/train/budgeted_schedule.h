// The learning-rate schedule the training loop follows: the task's, with its end laid out
// over the --time-limit budget (time_budget.h) when it decays to an end (cosine). The budget
// is the whole run's: a checkpoint stores it with the planned end step, a resume keeps it
// (a --time-limit given to the resume replaces it, still counted from the run's start).
// The constant and dlstudio-warmup schedules have no end to lay out: the run just stops
// when the budget is spent. A new estimate never makes the rate jump: the warm-up only
// shortens, and the decay goes on from where it is over the steps now left. Without a budget,
// a resume whose --epochs move a cosine's end lays it out anew, in a warning line.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "dls/settings/lr_schedule.h"
#include "dls/train/time_budget.h"
#include "dls/checkpoint/checkpoint_fwd.h"

namespace dls::train {

class BudgetedSchedule {
 public:
  // `limit_s` > 0: this invocation's --time-limit; `wall_s`: the run's seconds so far.
  // `log`: this process writes the run's log lines (rank 0).
  BudgetedSchedule(const settings::LrSchedule& schedule, double limit_s, std::int64_t steps_per_epoch,
                   const checkpoint::CheckpointReader* resume, double wall_s, bool log);

  double at(std::int64_t step) const;          // the rate of optimizer step `step` >= 1
  double limit_s() const { return limit_s_; }  // the run's budget; 0: none
  bool out_of_time(double wall_s) const { return limit_s_ > 0 && wall_s >= limit_s_; }

  // After optimizer step `global_step`, run seconds `started_s` to `ended_s` (rank 0's clock
  // on every rank, so that every rank follows the same schedule).
  void step_done(std::int64_t global_step, double started_s, double ended_s);

  void describe(checkpoint::CheckpointWriter& writer) const;  // the budget and its planned end
  std::string summary() const;                                // for the run's last line; "" without a laid-out budget

 private:
  void lay_out(std::int64_t end_step, std::int64_t at_step);
  void warn_if_epochs_end_first(std::int64_t global_step, double ended_s) const;
  double progress(std::int64_t step) const;  // of the cosine decay, 0 to 1

  settings::LrSchedule schedule_;
  settings::LrSchedule planned_;  // the task's own (its epochs' end and warm-up)
  double limit_s_ = 0;
  std::optional<TimeBudget> budget_;
  bool log_;
  bool announced_ = false;
  bool epochs_checked_ = false;  // whether the epochs' end was compared with the budget
  // The latest re-plan inside the decay: at anchor_step_ the cosine had reached
  // anchor_progress_; from there it runs linearly in steps to the planned end (0: none yet).
  std::int64_t anchor_step_ = 0;
  double anchor_progress_ = 0;
};

}  // namespace dls::train

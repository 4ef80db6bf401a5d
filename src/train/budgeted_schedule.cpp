#include "dls/train/budgeted_schedule.h"

#include <algorithm>

#include <spdlog/spdlog.h>

#include "dls/checkpoint/checkpoint.h"
#include "dls/checkpoint/run_state.h"
#include "dls/util/key_values.h"
#include "dls/util/progress.h"

namespace dls::train {

namespace {

const char* const kTimeBudgetText = "time_budget";  // limit_s=..., end_step=...
const char* const kCosinePlanText = "cosine_plan";  // end_step=...: a cosine without a budget

// A resume whose --epochs moved the cosine's end lays the decay out anew, and the rate
// jumps (up when the run is made longer): said in one line, from the plan the checkpoint
// stored.
void warn_of_a_new_cosine_end(const settings::LrSchedule& schedule, const checkpoint::CheckpointReader& resume) {
  if (schedule.kind != settings::ScheduleKind::kWarmupCosine || !resume.has_text(kCosinePlanText)) return;
  auto planned = schedule;
  planned.total_steps = util::KeyValues::from_text(resume.text(kCosinePlanText), resume.path()).get_int("end_step");
  if (planned.total_steps == schedule.total_steps) return;
  const auto next = checkpoint::RunState::from_settings(resume.settings()).global_step + 1;
  spdlog::warn(
      "--epochs: the cosine schedule laid out to end at step {} now ends at step {}: the rate of step {} is {:.3g} "
      "instead of {:.3g} (see learning_rate.png)",
      planned.total_steps, schedule.total_steps, next, schedule.at(next), planned.at(next));
}

}  // namespace

BudgetedSchedule::BudgetedSchedule(const settings::LrSchedule& schedule, double limit_s, std::int64_t steps_per_epoch,
                                   const checkpoint::CheckpointReader* resume, double wall_s, bool log)
    : schedule_(schedule), planned_(schedule), log_(log) {
  double stored_limit = 0;
  std::int64_t stored_end = 0;
  if (resume != nullptr && resume->has_text(kTimeBudgetText)) {
    const auto stored = util::KeyValues::from_text(resume->text(kTimeBudgetText), resume->path());
    stored_limit = stored.get_double("limit_s");
    stored_end = stored.get_int("end_step");
    // Written since the warm-up stopped growing back; older checkpoints lay it out afresh.
    if (stored.has("warmup_steps")) {
      schedule_.warmup_steps = stored.get_int("warmup_steps");
      anchor_step_ = stored.get_int("anchor_step");
      anchor_progress_ = stored.get_double("anchor_progress");
    }
  }
  limit_s_ = limit_s > 0 ? limit_s : stored_limit;
  if (limit_s_ <= 0) {
    if (log_ && resume != nullptr) warn_of_a_new_cosine_end(schedule, *resume);
    return;
  }
  if (log_ && resume != nullptr) {
    const std::string replaced = stored_limit > 0 && limit_s_ != stored_limit
                                     ? fmt::format(" (replacing the run's {:.0f} s)", stored_limit)
                                     : "";
    spdlog::info("time budget {:g} s for the whole run{}: {} used, {} left", limit_s_, replaced,
                 util::format_duration(wall_s), util::format_duration(std::max(0.0, limit_s_ - wall_s)));
  }
  if (schedule.kind != settings::ScheduleKind::kWarmupCosine) {
    if (log_) {
      spdlog::info("the {} schedule has no end to lay out over the {:g} s budget: the run stops when it is spent",
                   settings::to_string(schedule.kind), limit_s_);
    }
    return;
  }
  TimeBudgetOptions options;
  options.limit_s = limit_s_;
  options.epochs_end_step = schedule.total_steps;
  options.steps_per_epoch = std::max<std::int64_t>(1, steps_per_epoch);
  budget_.emplace(options, stored_end > 0 ? stored_end : schedule.total_steps);
  lay_out(budget_->end_step(), 0);
}

double BudgetedSchedule::at(std::int64_t step) const {
  if (!budget_ || step <= schedule_.warmup_steps) return schedule_.at(step);
  return schedule_.decayed(progress(step));
}

double BudgetedSchedule::progress(std::int64_t step) const {
  const auto from = std::max(anchor_step_, schedule_.warmup_steps);
  const double span = static_cast<double>(std::max<std::int64_t>(schedule_.total_steps - from, 1));
  return std::clamp(anchor_progress_ + (1.0 - anchor_progress_) * static_cast<double>(step - from) / span, 0.0, 1.0);
}

void BudgetedSchedule::step_done(std::int64_t global_step, double started_s, double ended_s) {
  if (!budget_) return;
  const bool moved = budget_->step_done(global_step, started_s, ended_s);
  if (log_ && !epochs_checked_ && budget_->seconds_per_step() > 0) {
    epochs_checked_ = true;
    warn_if_epochs_end_first(global_step, ended_s);
  }
  if (!moved) return;
  lay_out(budget_->end_step(), global_step);
  if (!log_) return;
  const std::string line = fmt::format(
      "schedule laid out over {} steps for the {:g} s budget ({:.3f} s per step{}, step {}, {:.0f} s left)",
      schedule_.total_steps, limit_s_, budget_->seconds_per_step(),
      budget_->seconds_per_epoch_end() > 0 ? fmt::format(", {:.1f} s per epoch end", budget_->seconds_per_epoch_end())
                                           : std::string(),
      global_step, std::max(0.0, limit_s_ - ended_s));
  // The first estimate for everyone; the re-estimates for who asks.
  if (announced_) {
    spdlog::debug("{}", line);
  } else {
    spdlog::info("{}", line);
  }
  announced_ = true;
}

// A budget that the epochs end well before (a preset's epochs with a long --time-limit)
// would otherwise leave the user wondering why the run stopped early.
void BudgetedSchedule::warn_if_epochs_end_first(std::int64_t global_step, double ended_s) const {
  const auto end = budget_->epochs_end_step();
  if (budget_->end_step() < end) return;
  const double left_s = limit_s_ - ended_s;
  const double epochs_s = budget_->seconds_to(global_step, end);
  if (epochs_s >= 0.9 * left_s) return;
  spdlog::warn(
      "the epochs end this run at step {}, in about {} of the {} the budget has left: give more --epochs "
      "to train for the whole budget",
      end, util::format_duration(epochs_s), util::format_duration(left_s));
}

// A new end, estimated after step `at_step`. In the warm-up, a budget that fits fewer than
// twice the warm-up shortens it to half of the steps that fit (so that the rate still decays
// to its floor), never below the steps done, and never lengthens it again: a longer warm-up
// would lower the rate (step / warm-up) while it climbs. In the decay, the cosine goes on from
// the progress already reached, over the steps now left: the rate bends, it does not jump.
void BudgetedSchedule::lay_out(std::int64_t end_step, std::int64_t at_step) {
  if (at_step > schedule_.warmup_steps) {
    anchor_progress_ = progress(at_step);
    anchor_step_ = at_step;
  } else {
    schedule_.warmup_steps = std::max(at_step, std::min({planned_.warmup_steps, schedule_.warmup_steps, end_step / 2}));
  }
  schedule_.total_steps = end_step;
}

void BudgetedSchedule::describe(checkpoint::CheckpointWriter& writer) const {
  if (limit_s_ <= 0) {
    if (schedule_.kind == settings::ScheduleKind::kWarmupCosine) {
      util::KeyValues plan;
      plan.set("end_step", schedule_.total_steps);
      writer.add_text(kCosinePlanText, plan.to_text());
    }
    return;
  }
  util::KeyValues stored;
  stored.set("limit_s", limit_s_);
  stored.set("end_step", budget_ ? budget_->end_step() : std::int64_t{0});
  stored.set("warmup_steps", schedule_.warmup_steps);
  stored.set("anchor_step", anchor_step_);
  stored.set("anchor_progress", anchor_progress_);
  writer.add_text(kTimeBudgetText, stored.to_text());
}

std::string BudgetedSchedule::summary() const {
  if (!budget_) return "";
  return fmt::format(", schedule laid out over {} steps for the {:g} s budget", schedule_.total_steps, limit_s_);
}

}  // namespace dls::train

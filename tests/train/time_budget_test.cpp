// The time-budget estimator driven by a fake clock: a simulated run advances the clock by
// each step's time (and each epoch end's evaluation) and stops when the budget is spent,
// as the training loop does.
#include "dls/train/time_budget.h"

#include <gtest/gtest.h>

#include <functional>

namespace dls::train {
namespace {

struct SimulatedRun {
  std::int64_t steps = 0;     // steps done when the budget ran out (or the epochs ended)
  std::int64_t end_step = 0;  // the estimator's final end step
  int reestimates = 0;        // estimates that moved the end
};

// A step time that never changes: `seconds` for every step.
std::function<double(std::int64_t)> every_step_takes(double seconds) {
  return [seconds](std::int64_t) { return seconds; };
}

// Steps from `first_step` (clock at `start_s`) until the clock reaches the budget or the
// epochs end; `step_seconds(step)` is each step's time, `epoch_end_s` the pause after each
// epoch's last step.
SimulatedRun simulate(TimeBudget& budget, std::int64_t first_step, double start_s, std::int64_t epochs_end,
                      std::int64_t steps_per_epoch, const std::function<double(std::int64_t)>& step_seconds,
                      double epoch_end_s = 0) {
  SimulatedRun run;
  double clock = start_s;
  for (std::int64_t step = first_step; step <= epochs_end; ++step) {
    if (step > first_step && (step - 1) % steps_per_epoch == 0) clock += epoch_end_s;
    const double started = clock;
    clock += step_seconds(step);
    if (budget.step_done(step, started, clock)) run.reestimates += 1;
    run.steps = step;
    if (clock >= budget.limit_s()) break;
  }
  run.end_step = budget.end_step();
  return run;
}

TimeBudgetOptions options(double limit_s, std::int64_t epochs_end, std::int64_t steps_per_epoch) {
  return {limit_s, epochs_end, steps_per_epoch};  // the steps skipped and measured: the defaults
}

TEST(TimeBudget, ConstantStepTimeEndsTheScheduleExactlyAtTheBudget) {
  // 1000 s at 0.5 s per step after 7 s of data loading: 1986 steps fit.
  TimeBudget budget(options(1000, 100000, 100000), 100000);
  EXPECT_EQ(budget.end_step(), 100000) << "the epochs' plan until measured";
  const auto run = simulate(budget, 1, 7.0, 100000, 100000, every_step_takes(0.5));
  EXPECT_EQ(run.steps, 1986);
  EXPECT_EQ(run.end_step, 1986);
  EXPECT_DOUBLE_EQ(budget.seconds_per_step(), 0.5);
}

TEST(TimeBudget, SecondsToAnEndCountTheStepsAndTheEpochEndsOnTheWay) {
  // 0.5 s per step, 2 s per epoch end, 100 steps per epoch; the epochs end at step 800.
  TimeBudget budget(options(100000, 800, 100), 800);
  EXPECT_EQ(budget.seconds_to(10, 800), 0.0) << "nothing measured yet";
  simulate(budget, 1, 0.0, 250, 100, every_step_takes(0.5), 2.0);
  ASSERT_DOUBLE_EQ(budget.seconds_per_step(), 0.5);
  ASSERT_DOUBLE_EQ(budget.seconds_per_epoch_end(), 2.0);
  EXPECT_EQ(budget.epochs_end_step(), 800);
  EXPECT_DOUBLE_EQ(budget.seconds_to(250, 800), 550 * 0.5 + 5 * 2.0) << "epoch ends after 300, 400, ..., 700";
  EXPECT_DOUBLE_EQ(budget.seconds_to(250, 260), 10 * 0.5);
  EXPECT_DOUBLE_EQ(budget.seconds_to(800, 800), 0.0);
}

TEST(TimeBudget, StepTimeThatDoublesMidRunIsReEstimated) {
  // 1 s per step for 400 steps, then 2 s: 400 + 600 / 2 = 700 steps fit in 1000 s.
  TimeBudget budget(options(1000, 100000, 100000), 100000);
  const auto run = simulate(budget, 1, 0.0, 100000, 100000, [](std::int64_t step) { return step <= 400 ? 1.0 : 2.0; });
  EXPECT_EQ(run.steps, 700);
  EXPECT_EQ(run.end_step, 700);
  EXPECT_GE(run.reestimates, 2) << "laid out at 1 s per step first (1000), then moved";
}

TEST(TimeBudget, EpochEndsCostIsTakenFromTheSteps) {
  // 100 steps of 1 s per epoch, 10 s of evaluation after each: 9 epochs (990 s) and 10 steps.
  TimeBudget budget(options(1000, 100000, 100), 100000);
  const auto run = simulate(budget, 1, 0.0, 100000, 100, every_step_takes(1.0), 10.0);
  EXPECT_EQ(run.steps, 910);
  EXPECT_EQ(run.end_step, 910);
  EXPECT_DOUBLE_EQ(budget.seconds_per_epoch_end(), 10.0);
}

TEST(TimeBudget, BudgetLargerThanTheEpochsLeavesTheirScheduleUnchanged) {
  TimeBudget budget(options(1e6, 500, 100), 500);
  const auto run = simulate(budget, 1, 0.0, 500, 100, every_step_takes(1.0), 5.0);
  EXPECT_EQ(run.steps, 500);
  EXPECT_EQ(run.end_step, 500);
  EXPECT_EQ(run.reestimates, 0);
}

TEST(TimeBudget, ResumedRunFollowsItsStoredPlanThenTheTimeLeft) {
  // The first invocation stopped (by a signal) at step 300 of a 1000 s budget at 1 s per step;
  // the resumed one starts at run second 305 (300 s trained + 5 s loading) with the stored plan.
  TimeBudget first(options(1000, 100000, 100000), 100000);
  const auto before = simulate(first, 1, 0.0, 300, 100000, every_step_takes(1.0));
  ASSERT_EQ(before.end_step, 1000);
  TimeBudget resumed(options(1000, 100000, 100000), before.end_step);
  EXPECT_EQ(resumed.end_step(), 1000);
  const auto after = simulate(resumed, 301, 300.0 + 5.0, 100000, 100000, every_step_takes(1.0));
  EXPECT_EQ(after.steps, 995);
  EXPECT_EQ(after.end_step, 995);
}

TEST(TimeBudget, NeverEndsBeforeTheCurrentStep) {
  TimeBudget budget(options(100, 1000, 1000), 1000);
  const auto run = simulate(budget, 1, 0.0, 1000, 1000, every_step_takes(1.0));
  EXPECT_EQ(run.steps, 100);
  EXPECT_EQ(run.end_step, 100);
  EXPECT_EQ(budget.steps_fitting(50, 20.5), 70);
  EXPECT_EQ(budget.steps_fitting(50, -5.0), 50) << "out of time: the decay ends now";
  EXPECT_EQ(budget.steps_fitting(1200, 5.0), 1000) << "past the epochs' end";
}

}  // namespace
}  // namespace dls::train

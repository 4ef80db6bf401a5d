// The learning rate laid out over a --time-limit budget, driven by a fake clock: however the
// estimate moves, the rate climbs through the warm-up and then only falls (no jumps), it ends
// near its floor at the budget, and a resumed run follows the schedule of the run it continues.
#include "dls/train/budgeted_schedule.h"

#include <gtest/gtest.h>

#include <vector>

#include "dls/checkpoint/checkpoint.h"
#include "util/temp_files.h"

namespace dls::train {
namespace {

checkpoint::LrSchedule cosine() {
  checkpoint::LrSchedule s;
  s.kind = checkpoint::ScheduleKind::kWarmupCosine;
  s.base_lr = 1e-3;
  s.min_lr = 1e-5;
  s.warmup_steps = 1000;
  s.total_steps = 10000;  // the epochs' end, far beyond the budget
  return s;
}

// Steps of 0.5 s for 200 steps, 0.6 s up to step 1000, then 0.4 s, until the 1000 s budget is
// spent: the end estimate moves out (~1670 steps), in (during the warm-up) and out again
// (~2070, during the decay).
// Returns the rate of every step, as the loop reads it before the step.
std::vector<double> run(BudgetedSchedule& schedule, std::int64_t first_step = 1, std::int64_t last_step = 0,
                        double clock = 0) {
  std::vector<double> rates;
  for (std::int64_t step = first_step; clock < 1000 && (last_step == 0 || step <= last_step); ++step) {
    rates.push_back(schedule.at(step));
    const double started = clock;
    clock += step <= 200 ? 0.5 : step <= 1000 ? 0.6 : 0.4;
    schedule.step_done(step, started, clock);
  }
  return rates;
}

TEST(BudgetedSchedule, TheRateClimbsThenOnlyFallsWhileTheEstimateMoves) {
  BudgetedSchedule schedule(cosine(), 1000, 10000, nullptr, 0, false);
  const auto rates = run(schedule);
  ASSERT_GT(rates.size(), 1900u);
  std::size_t peak = 0;
  for (std::size_t i = 1; i < rates.size(); ++i) {
    if (rates[i] > rates[peak]) peak = i;
  }
  for (std::size_t i = 1; i <= peak; ++i) ASSERT_GE(rates[i], rates[i - 1]) << "step " << i + 1;
  for (std::size_t i = peak + 1; i < rates.size(); ++i) {
    ASSERT_LE(rates[i], rates[i - 1]) << "step " << i + 1;
    ASSERT_LT(rates[i - 1] - rates[i], 0.01 * 1e-3) << "step " << i + 1 << ": a jump";
  }
  EXPECT_DOUBLE_EQ(rates[peak], 1e-3);
  EXPECT_LT(peak, rates.size() / 2) << "the warm-up is at most half of the steps that fit";
  EXPECT_LT(rates.back(), 0.05 * 1e-3) << "the schedule ends at the budget, near its floor";
}

TEST(BudgetedSchedule, AResumedRunFollowsTheSameSchedule) {
  BudgetedSchedule straight(cosine(), 1000, 10000, nullptr, 0, false);
  const auto straight_rates = run(straight);

  BudgetedSchedule first(cosine(), 1000, 10000, nullptr, 0, false);
  run(first, 1, 1200);  // interrupted after step 1200, in the decay: 100 + 480 + 80 = 660 s
  const auto path = (test::fresh_temp_dir("budgeted_schedule") / "checkpoint.pt").string();
  checkpoint::CheckpointWriter writer("test");
  writer.set_settings({});
  first.describe(writer);
  writer.save(path);
  const checkpoint::CheckpointReader reader(path, "test");
  BudgetedSchedule resumed(cosine(), 0, 10000, &reader, 660, false);
  EXPECT_EQ(resumed.limit_s(), 1000);
  // The resumed invocation measures its own step time from scratch; until it has, it follows
  // the stored plan, which is the straight run's at that point.
  for (std::int64_t step = 1201; step <= 1205; ++step) {
    EXPECT_DOUBLE_EQ(resumed.at(step), straight_rates[static_cast<std::size_t>(step - 1)]) << "step " << step;
  }
}

}  // namespace
}  // namespace dls::train

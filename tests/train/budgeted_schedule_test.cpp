// The learning rate laid out over a --time-limit budget, driven by a fake clock: however the
// estimate moves, the rate climbs through the warm-up and then only falls (no jumps), it ends
// near its floor at the budget, and a resumed run follows the schedule of the run it continues.
#include "dls/train/budgeted_schedule.h"

#include <gtest/gtest.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include <sstream>
#include <string>
#include <vector>

#include "dls/checkpoint/checkpoint.h"
#include "dls/checkpoint/run_state.h"
#include "util/temp_files.h"

namespace dls::train {
namespace {

settings::LrSchedule cosine() {
  settings::LrSchedule s;
  s.kind = settings::ScheduleKind::kWarmupCosine;
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

// The log of a run of `epochs_end` steps of 0.5 s under a 1000 s budget.
std::string log_of_run(std::int64_t epochs_end) {
  std::ostringstream log;
  const auto previous = spdlog::default_logger();
  auto logger = std::make_shared<spdlog::logger>("capture", std::make_shared<spdlog::sinks::ostream_sink_mt>(log));
  logger->set_pattern("%l %v");
  spdlog::set_default_logger(logger);
  auto schedule_options = cosine();
  schedule_options.warmup_steps = 10;
  schedule_options.total_steps = epochs_end;
  BudgetedSchedule schedule(schedule_options, 1000, epochs_end, nullptr, 0, true);
  double clock = 0;
  for (std::int64_t step = 1; step <= epochs_end && clock < 1000; ++step) {
    const double started = clock;
    clock += 0.5;
    schedule.step_done(step, started, clock);
  }
  spdlog::set_default_logger(previous);
  return log.str();
}

TEST(BudgetedSchedule, EpochsThatEndLongBeforeTheBudgetAreSaidOnce) {
  // 500 steps of 0.5 s: 250 s of a 1000 s budget.
  const auto early = log_of_run(500);
  const auto at = early.find("warning the epochs end this run at step 500");
  ASSERT_NE(at, std::string::npos) << early;
  EXPECT_NE(early.find("give more --epochs"), std::string::npos) << early;
  EXPECT_EQ(early.find("warning the epochs", at + 1), std::string::npos) << "said once: " << early;
  // 1990 steps of 0.5 s fill the budget: no warning.
  const auto filling = log_of_run(1990);
  EXPECT_EQ(filling.find("warning"), std::string::npos) << filling;
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
  writer.add_settings({});
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

// Without a budget, a resume whose --epochs moved the cosine's end says so in one warning,
// with the rate the next step had and has; one that keeps the end says nothing.
TEST(BudgetedSchedule, AResumeThatMovesTheCosinesEndSaysSo) {
  BudgetedSchedule first(cosine(), 0, 1000, nullptr, 0, false);
  const auto path = (test::fresh_temp_dir("budgeted_schedule_epochs") / "checkpoint.pt").string();
  checkpoint::CheckpointWriter writer("test");
  checkpoint::RunState state;
  state.global_step = 9999;
  writer.add_settings({});
  checkpoint::describe_run_state(writer, state);
  first.describe(writer);
  writer.save(path);
  const checkpoint::CheckpointReader reader(path, "test");
  const auto log_of_resume = [&](std::int64_t total_steps) {
    std::ostringstream log;
    const auto previous = spdlog::default_logger();
    spdlog::set_default_logger(
        std::make_shared<spdlog::logger>("capture", std::make_shared<spdlog::sinks::ostream_sink_mt>(log)));
    spdlog::default_logger()->set_pattern("%l %v");
    auto longer = cosine();
    longer.total_steps = total_steps;
    const BudgetedSchedule resumed(longer, 0, 1000, &reader, 0, true);
    spdlog::set_default_logger(previous);
    return log.str();
  };
  EXPECT_EQ(log_of_resume(10000), "") << "the same end";
  auto longer = cosine();
  longer.total_steps = 20000;
  const auto text = log_of_resume(20000);
  EXPECT_EQ(text,
            "warning --epochs: the cosine schedule laid out to end at step 10000 now ends at step 20000: the "
            "rate of step 10000 is " +
                fmt::format("{:.3g}", longer.at(10000)) + " instead of 1e-05 (see learning_rate.png)\n");
}

}  // namespace
}  // namespace dls::train

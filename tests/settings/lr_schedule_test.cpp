#include "dls/settings/lr_schedule.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace dls::settings {
namespace {

TEST(LrSchedule, DLStudioWarmupFormula) {
  LrSchedule schedule;
  schedule.kind = ScheduleKind::kDLStudioWarmup;
  schedule.embedding_size = 256;
  schedule.warmup_steps = 4000;
  for (const std::int64_t step : {1, 100, 3999, 4000, 4001, 20000}) {
    const double s = static_cast<double>(step);
    const double expected = 2.0 * std::pow(256.0, -0.5) * std::min(std::pow(s, -0.5), s * std::pow(4000.0, -1.5));
    EXPECT_DOUBLE_EQ(schedule.at(step), expected) << step;
  }
  // Peak at the end of the warm-up: 2 / 16 / sqrt(4000).
  EXPECT_NEAR(schedule.at(4000), 0.125 / std::sqrt(4000.0), 1e-15);
  EXPECT_LT(schedule.at(3000), schedule.at(4000));
  EXPECT_LT(schedule.at(5000), schedule.at(4000));
}

TEST(LrSchedule, CosineWithWarmup) {
  LrSchedule schedule;
  schedule.kind = ScheduleKind::kWarmupCosine;
  schedule.base_lr = 1e-3;
  schedule.min_lr = 1e-5;
  schedule.warmup_steps = 10;
  schedule.total_steps = 110;
  EXPECT_DOUBLE_EQ(schedule.at(1), 1e-4);
  EXPECT_DOUBLE_EQ(schedule.at(10), 1e-3);
  EXPECT_NEAR(schedule.at(60), (1e-3 + 1e-5) / 2, 1e-15);
  EXPECT_NEAR(schedule.at(110), 1e-5, 1e-15);
  EXPECT_NEAR(schedule.at(500), 1e-5, 1e-15);
}

// The flags a schedule calls unread are exactly those whose value leaves its rates alone.
TEST(LrSchedule, UnreadFlagsAreThoseThatChangeNoRate) {
  for (const auto kind : {ScheduleKind::kConstant, ScheduleKind::kDLStudioWarmup, ScheduleKind::kWarmupCosine}) {
    LrSchedule schedule;
    schedule.kind = kind;
    schedule.base_lr = 1e-3;
    schedule.min_lr = 1e-5;
    schedule.warmup_steps = 10;
    schedule.total_steps = 110;
    std::vector<std::string> unread;
    for (const auto& [flag, why] : schedule.unread_flags()) {
      unread.push_back(flag);
      EXPECT_NE(why.find(to_string(kind)), std::string::npos) << why;
    }
    for (const std::string flag : {"--lr", "--min-lr"}) {
      auto changed = schedule;
      (flag == "--lr" ? changed.base_lr : changed.min_lr) *= 2;
      bool same = true;
      for (std::int64_t step = 1; step <= 120; ++step) same = same && changed.at(step) == schedule.at(step);
      EXPECT_EQ(same, std::find(unread.begin(), unread.end(), flag) != unread.end()) << to_string(kind) << " " << flag;
    }
  }
}

TEST(LrSchedule, NamesRoundTrip) {
  for (auto kind : {ScheduleKind::kConstant, ScheduleKind::kDLStudioWarmup, ScheduleKind::kWarmupCosine}) {
    EXPECT_EQ(parse_schedule(to_string(kind)), kind);
  }
  EXPECT_THROW(parse_schedule("linear"), std::invalid_argument);
}

}  // namespace
}  // namespace dls::settings

#include "dls/util/ticks.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>

namespace dls::util {
namespace {

void expect_ticks(const std::vector<double>& got, const std::vector<double>& want) {
  ASSERT_EQ(got.size(), want.size()) << ::testing::PrintToString(got);
  for (std::size_t i = 0; i < got.size(); ++i) EXPECT_DOUBLE_EQ(got[i], want[i]) << i;
}

TEST(Ticks, OneTwoFiveStepsOnSeveralRanges) {
  EXPECT_DOUBLE_EQ(nice_step(0, 1, 8), 0.2);
  expect_ticks(nice_ticks(0, 1, 8), {0, 0.2, 0.4, 0.6, 0.8, 1.0});
  expect_ticks(nice_ticks(0, 100, 8), {0, 20, 40, 60, 80, 100});
  expect_ticks(nice_ticks(0, 100, 11), {0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100});
  expect_ticks(nice_ticks(-3.7, 12.2, 8), {-2, 0, 2, 4, 6, 8, 10, 12});
  expect_ticks(nice_ticks(0.0013, 0.0071, 5), {0.002, 0.004, 0.006});
  expect_ticks(nice_ticks(1e5, 3.5e5, 6), {1e5, 1.5e5, 2e5, 2.5e5, 3e5, 3.5e5});
  expect_ticks(nice_ticks(0.85, 6.15, 6), {1, 2, 3, 4, 5, 6});
  // Every step is 1, 2 or 5 times a power of ten, and never more ticks than asked for.
  for (double span : {0.003, 0.07, 1.0, 3.3, 17.0, 450.0, 9e6}) {
    for (int max_ticks : {2, 3, 5, 8, 12}) {
      const double step = nice_step(-0.37 * span, span, max_ticks);
      const double mantissa = step / std::pow(10.0, std::floor(std::log10(step) + 1e-9));
      EXPECT_TRUE(std::fabs(mantissa - 1) < 1e-9 || std::fabs(mantissa - 2) < 1e-9 || std::fabs(mantissa - 5) < 1e-9)
          << step;
      EXPECT_LE(static_cast<int>(nice_ticks(-0.37 * span, span, max_ticks).size()), max_ticks);
    }
  }
}

TEST(Ticks, ASpanTooNarrowForItsMagnitudeIsRefused) {
  EXPECT_THROW(nice_ticks(100, 100.00000000000004, 8), std::invalid_argument);
  EXPECT_THROW(nice_ticks(1e20, std::nextafter(1e20, 1e30), 8), std::invalid_argument);
  EXPECT_GE(nice_ticks(100, 100.0001, 8).size(), 2u);  // narrow, yet resolved
}

TEST(Ticks, ValuesAreCleanDecimals) {
  const auto ticks = nice_ticks(0, 0.35, 8);
  ASSERT_EQ(ticks.size(), 8u);
  EXPECT_EQ(ticks[6], 0.3);  // not 0.30000000000000004
  EXPECT_EQ(ticks[0], 0.0);
  EXPECT_FALSE(std::signbit(nice_ticks(-1, 1, 3)[1]));  // no "-0"
}

TEST(Ticks, LogAxis) {
  expect_ticks(log_ticks(0.8, 7.3), {1, 2, 5});
  expect_ticks(log_ticks(0.01, 1000), {0.01, 0.1, 1, 10, 100, 1000});
  expect_ticks(log_ticks(1e-6, 1e6, 5), {1e-6, 1e-3, 1, 1e3, 1e6});
  expect_ticks(log_ticks(1.1, 1.9), {1.2, 1.4, 1.6, 1.8});  // no 1-2-5 value: linear ticks
  EXPECT_THROW(log_ticks(0, 1), std::invalid_argument);
}

TEST(Ticks, RejectsEmptyOrNonFiniteRanges) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THROW(nice_step(1, 1, 8), std::invalid_argument);
  EXPECT_THROW(nice_step(2, 1, 8), std::invalid_argument);
  EXPECT_THROW(nice_step(0, nan, 8), std::invalid_argument);
  EXPECT_THROW(nice_step(0, 1, 1), std::invalid_argument);
}

TEST(Ticks, Labels) {
  EXPECT_EQ(format_tick(0.25, 0.05), "0.25");
  EXPECT_EQ(format_tick(0.2, 0.05), "0.20");
  EXPECT_EQ(format_tick(3, 1), "3");
  EXPECT_EQ(format_tick(40, 20), "40");
  EXPECT_EQ(format_tick(-0.5, 0.5), "-0.5");
  EXPECT_EQ(format_tick(1e-17, 0.2), "0");
  EXPECT_EQ(format_tick(2e6, 1e6), "2e6");
  EXPECT_EQ(format_tick(1.5e6, 5e5), "1.5e6");
  EXPECT_EQ(format_tick(3e-5, 1e-5), "3e-5");
  EXPECT_EQ(format_tick(150000, 50000), "150000");
  EXPECT_EQ(format_tick(0.01), "0.01");
  EXPECT_EQ(format_tick(1000), "1000");
  EXPECT_EQ(format_tick(1e-5), "1e-5");
  EXPECT_EQ(format_tick(2e7), "2e7");
  EXPECT_EQ(format_tick(0.0), "0");
}

}  // namespace
}  // namespace dls::util

#include "dls/util/progress.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>

namespace dls::util {
namespace {

// Everything written to a temporary stream so far.
std::string contents(std::FILE* file) {
  std::fflush(file);
  std::rewind(file);
  std::string out;
  char buffer[4096];
  for (std::size_t n; (n = std::fread(buffer, 1, sizeof(buffer), file)) > 0;) out.append(buffer, n);
  std::fseek(file, 0, SEEK_END);
  return out;
}

// Options that write to `file`, live (interactive) or as plain lines.
ProgressOptions to_file(std::FILE* file, bool live) {
  ProgressOptions options;
  options.interactive = live ? 1 : 0;
  options.stream = file;
  return options;
}

int count(const std::string& text, const std::string& what) {
  int n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(Progress, Durations) {
  EXPECT_EQ(format_duration(0), "0:00:00");
  EXPECT_EQ(format_duration(5.4), "0:00:05");
  EXPECT_EQ(format_duration(3723), "1:02:03");
  EXPECT_EQ(format_duration(100000), "27:46:40");
  EXPECT_EQ(format_duration(-1), "?:??:??");
  EXPECT_EQ(format_duration(std::nan("")), "?:??:??");
}

TEST(Progress, Rates) {
  EXPECT_EQ(format_rate(312.4, "pairs"), "312 pairs/s");
  EXPECT_EQ(format_rate(31.24, "pairs"), "31.2 pairs/s");
  EXPECT_EQ(format_rate(3.124, "img"), "3.12 img/s");
  EXPECT_EQ(format_rate(12345, "img"), "12.3k img/s");
  EXPECT_EQ(format_rate(0, "it"), "0.00 it/s");
  EXPECT_EQ(format_rate(std::nan(""), "it"), "? it/s");
}

TEST(Progress, LineShowsCountsRateAndEta) {
  ProgressSnapshot s;
  s.label = "epoch 3";
  s.done = 500;
  s.total = 1000;
  s.elapsed_s = 10;
  s.unit = "pairs";
  s.fields = {{"loss", "2.345"}, {"lr", "1e-4"}};
  EXPECT_EQ(format_progress(s),
            "epoch 3  500/1000  50.0%  50.0 pairs/s  elapsed 0:00:10  ETA 0:00:10  loss=2.345  lr=1e-4");
  s.bar_width = 10;
  s.fields.clear();
  EXPECT_EQ(format_progress(s), "epoch 3  [#####-----]  500/1000  50.0%  50.0 pairs/s  elapsed 0:00:10  ETA 0:00:10");
  // Resumed at 400: the rate counts only this run's work.
  s.initial = 400;
  s.done = 600;
  s.bar_width = 0;
  EXPECT_EQ(format_progress(s), "epoch 3  600/1000  60.0%  20.0 pairs/s  elapsed 0:00:10  ETA 0:00:20");
  s.finished = true;
  EXPECT_EQ(format_progress(s), "epoch 3  600/1000  60.0%  20.0 pairs/s  elapsed 0:00:10");
  ProgressSnapshot unknown;
  unknown.done = 42;
  unknown.elapsed_s = 0;
  EXPECT_EQ(format_progress(unknown), "42 it  ? it/s  elapsed 0:00:00");
}

TEST(Progress, PlainLinesOnlyEveryIntervalAndAtTheEnd) {
  std::FILE* file = std::tmpfile();
  ASSERT_NE(file, nullptr);
  {
    ProgressOptions options = to_file(file, false);
    options.unit = "img";
    ProgressBar bar(1000, "eval", options);
    EXPECT_FALSE(bar.interactive());
    for (int i = 1; i <= 1000; ++i) bar.update(i, {{"acc", "0.5"}});
    EXPECT_EQ(contents(file), "");  // the 30 s interval has not passed
    bar.finish();
    bar.finish();
  }  // the destructor adds nothing after finish()
  const std::string out = contents(file);
  EXPECT_EQ(count(out, "\n"), 1) << out;
  EXPECT_EQ(out.rfind("eval  1000/1000  100.0%  ", 0), 0u) << out;
  EXPECT_EQ(count(out, "ETA"), 0);
  EXPECT_EQ(count(out, "\r"), 0);
  std::fclose(file);

  file = std::tmpfile();
  ProgressOptions every = to_file(file, false);
  every.log_every_s = 0;
  {
    ProgressBar bar(3, "", every);
    for (int i = 1; i <= 3; ++i) bar.update(i, {{"loss", std::to_string(i)}});
  }
  const std::string lines = contents(file);
  EXPECT_EQ(count(lines, "\n"), 4) << lines;  // three updates and the final line
  EXPECT_EQ(count(lines, "loss=3"), 2) << lines;
  std::fclose(file);
}

TEST(Progress, LiveLineIsRedrawnInPlaceAndThrottled) {
  std::FILE* file = std::tmpfile();
  ASSERT_NE(file, nullptr);
  ProgressOptions options = to_file(file, true);
  options.redraw_every_s = 60;
  ProgressBar bar(100000, "train", options);
  EXPECT_TRUE(bar.interactive());
  for (int i = 1; i <= 100000; ++i) bar.update(i);
  bar.finish();
  const std::string out = contents(file);
  EXPECT_EQ(count(out, "\r"), 2) << out;  // the first update, then the final line
  EXPECT_EQ(count(out, "\n"), 1);
  EXPECT_EQ(out.back(), '\n');
  EXPECT_NE(out.find("[####################]  100000/100000"), std::string::npos) << out;
  std::fclose(file);
}

TEST(Progress, UpdateIsCheap) {
  std::FILE* file = std::tmpfile();
  ProgressBar bar(2000000, "", to_file(file, false));
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < 2000000; ++i) bar.update(i);
  const double ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count() / 2e6;
  EXPECT_LT(ns, 1000.0);  // a clock read; generous for a loaded machine
  bar.finish();
  std::fclose(file);
}

}  // namespace
}  // namespace dls::util

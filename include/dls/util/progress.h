// A progress display for training and evaluation loops: done/total, percentage, rate,
// elapsed time, ETA and a few named values (loss, lr).
//
// On a terminal it is one live line, redrawn in place at most ~10 times a second and
// ended with a newline by finish(). Elsewhere (CI, pipes, log files) it writes one plain
// line every `log_every_s` seconds and one at the end, so that logs stay readable.
// The display goes straight to its stream (stderr by default): a line redrawn with '\r'
// is not a log record.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

namespace dls::util {

// Named values shown after the counters, in order: {{"loss", "2.345"}, {"lr", "1e-4"}}.
using ProgressFields = std::vector<std::pair<std::string, std::string>>;

struct ProgressOptions {
  std::string unit = "it";      // the rate reads "312 pairs/s" with unit "pairs"
  double log_every_s = 30.0;    // not a terminal: seconds between plain lines
  double redraw_every_s = 0.1;  // terminal: seconds between redraws
  std::int64_t initial = 0;     // work already done before this run (resumed training)
  int interactive = -1;         // 1 live line, 0 plain lines, -1 live when `stream` is a tty
  std::FILE* stream = stderr;
};

// Everything one line shows; format_progress turns it into text.
struct ProgressSnapshot {
  std::string label;
  std::int64_t done = 0;
  std::int64_t total = 0;    // <= 0: unknown (no percentage, no ETA)
  std::int64_t initial = 0;  // excluded from the rate
  double elapsed_s = 0;
  std::string unit = "it";
  ProgressFields fields;
  int bar_width = 0;      // 0: no [#####-----] bar
  bool finished = false;  // final line: no ETA
};

// "train  [#####-----]  500/1000  50.0%  312 pairs/s  elapsed 0:00:01  ETA 0:00:01  loss=2.3"
std::string format_progress(const ProgressSnapshot& snapshot);

// h:mm:ss ("0:00:05", "27:46:40"); "?:??:??" for negative, NaN or infinite durations.
std::string format_duration(double seconds);

// "312 pairs/s", "31.2 pairs/s", "3.12 pairs/s", "12.3k img/s"; "? it/s" when unknown.
std::string format_rate(double per_second, const std::string& unit);

class ProgressBar {
 public:
  ProgressBar(std::int64_t total, std::string label, ProgressOptions options = {});
  ~ProgressBar();  // finish() unless already called
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  // Records progress; draws when the redraw/log interval has passed. Costs one clock read
  // when nothing is drawn; `fields` are only copied when a line is drawn (an empty list
  // keeps the previous values). Formatting fields costs more than this call: hot loops can
  // skip it when !due().
  void update(std::int64_t done, const ProgressFields& fields = {});
  bool due() const;

  // Draws the final line (and the newline on a terminal), with `fields` if given (the
  // final values, which update() may not have copied). Later calls do nothing.
  void finish(const ProgressFields& fields = {});

  // Erases the live line (terminal only) so that a log line can be printed in its place;
  // the next update() draws it again below.
  void clear_line();

  bool interactive() const { return interactive_; }
  // What would be drawn now.
  std::string line() const;

 private:
  using Clock = std::chrono::steady_clock;
  double seconds_since(Clock::time_point t) const;
  void draw(bool final_line);

  std::string label_;
  std::int64_t total_;
  ProgressOptions options_;
  bool interactive_ = false;
  int columns_ = 100;  // terminal width; the live line is cut to fit
  std::int64_t done_ = 0;
  ProgressFields fields_;
  Clock::time_point start_;
  Clock::time_point next_draw_;
  bool finished_ = false;
};

}  // namespace dls::util

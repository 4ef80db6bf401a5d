#include "dls/util/progress.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "dls/util/utf8.h"

namespace dls::util {

namespace {

constexpr int kProgressBarWidth = 20;

int terminal_columns(std::FILE* stream) {
  winsize size{};
  if (::ioctl(fileno(stream), TIOCGWINSZ, &size) == 0 && size.ws_col > 0) return size.ws_col;
  if (const char* env = std::getenv("COLUMNS")) {
    const int columns = std::atoi(env);
    if (columns > 0) return columns;
  }
  return 100;
}

std::string printf_string(const char* format, double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), format, value);
  return buffer;
}

}  // namespace

std::string format_duration(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "?:??:??";
  const long long total = std::llround(seconds);
  char buffer[48];
  std::snprintf(buffer, sizeof(buffer), "%lld:%02lld:%02lld", total / 3600, total / 60 % 60, total % 60);
  return buffer;
}

std::string format_rate(double per_second, const std::string& unit) {
  const std::string suffix = " " + unit + "/s";
  if (!std::isfinite(per_second) || per_second < 0) return "?" + suffix;
  if (per_second >= 1e4) return printf_string("%.1fk", per_second / 1000) + suffix;
  if (per_second >= 100) return printf_string("%.0f", per_second) + suffix;
  if (per_second >= 10) return printf_string("%.1f", per_second) + suffix;
  return printf_string("%.2f", per_second) + suffix;
}

std::string format_progress(const ProgressSnapshot& s) {
  std::string line = s.label;
  const auto part = [&line](const std::string& text) {
    if (!line.empty()) line += "  ";
    line += text;
  };
  const bool known_total = s.total > 0;
  const double fraction = known_total ? std::clamp(static_cast<double>(s.done) / s.total, 0.0, 1.0) : 0.0;
  if (known_total && s.bar_width > 0) {
    const int filled = static_cast<int>(fraction * s.bar_width);
    part("[" + std::string(filled, '#') + std::string(s.bar_width - filled, '-') + "]");
  }
  if (known_total) {
    part(std::to_string(s.done) + "/" + std::to_string(s.total));
    part(printf_string("%.1f%%", 100 * fraction));
  } else {
    part(std::to_string(s.done) + " " + s.unit);
  }
  const double rate = s.elapsed_s > 0 ? (s.done - s.initial) / s.elapsed_s : NAN;
  part(format_rate(rate, s.unit));
  part("elapsed " + format_duration(s.elapsed_s));
  if (known_total && !s.finished) {
    part("ETA " + format_duration(rate > 0 ? std::max<double>(0, s.total - s.done) / rate : NAN));
  }
  for (const auto& [key, value] : s.fields) part(key + "=" + value);
  return line;
}

ProgressBar::ProgressBar(std::int64_t total, std::string label, ProgressOptions options)
    : label_(std::move(label)),
      total_(total),
      options_(std::move(options)),
      done_(options_.initial),
      start_(Clock::now()) {
  interactive_ = options_.interactive < 0 ? ::isatty(fileno(options_.stream)) != 0 : options_.interactive == 1;
  if (interactive_) columns_ = terminal_columns(options_.stream);
  // A live line shows up at once; plain lines only after the first interval.
  next_draw_ =
      interactive_
          ? start_
          : start_ + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(options_.log_every_s));
}

ProgressBar::~ProgressBar() { finish(); }

double ProgressBar::seconds_since(Clock::time_point t) const {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

bool ProgressBar::due() const { return !finished_ && Clock::now() >= next_draw_; }

void ProgressBar::update(std::int64_t done, const ProgressFields& fields) {
  done_ = done;
  if (!due()) return;
  if (!fields.empty()) fields_ = fields;
  draw(false);
}

void ProgressBar::finish(const ProgressFields& fields) {
  if (finished_) return;
  if (!fields.empty()) fields_ = fields;
  draw(true);
  finished_ = true;
}

std::string ProgressBar::line() const {
  ProgressSnapshot snapshot;
  snapshot.label = label_;
  snapshot.done = done_;
  snapshot.total = total_;
  snapshot.initial = options_.initial;
  snapshot.elapsed_s = seconds_since(start_);
  snapshot.unit = options_.unit;
  snapshot.fields = fields_;
  snapshot.bar_width = interactive_ ? kProgressBarWidth : 0;
  snapshot.finished = finished_;
  return format_progress(snapshot);
}

void ProgressBar::clear_line() {
  if (!interactive_ || finished_) return;
  std::fprintf(options_.stream, "\r\x1b[K");
  std::fflush(options_.stream);
  next_draw_ = Clock::now();  // redraw at the next update
}

void ProgressBar::draw(bool final_line) {
  finished_ = final_line;  // so that line() leaves out the ETA
  const std::string text = line();
  if (interactive_) {
    // '\r' back to the start, the line cut to the terminal's width (a wrapped line could
    // not be redrawn in place), then erase whatever a longer previous line left.
    std::fprintf(options_.stream, "\r%s\x1b[K%s", truncate_to_width(text, columns_ - 1).c_str(),
                 final_line ? "\n" : "");
  } else {
    std::fprintf(options_.stream, "%s\n", text.c_str());
  }
  std::fflush(options_.stream);
  const double interval = interactive_ ? options_.redraw_every_s : options_.log_every_s;
  next_draw_ = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(interval));
}

}  // namespace dls::util

#include "dls/util/ticks.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

namespace dls::util {

namespace {

constexpr double kSlack = 1e-9;  // tolerance, in steps, at the ends of a range

// 0.30000000000000004 -> 0.3: twelve significant digits are far more than a label shows.
double clean(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.12g", value);
  const double cleaned = std::strtod(buffer, nullptr);
  return cleaned == 0 ? 0.0 : cleaned;  // no "-0"
}

// "%.{digits}e" with a plain exponent: 2e+06 -> 2e6, 1.5e-05 -> 1.5e-5.
std::string exponent_form(double value, int significant) {
  char buffer[40];
  std::snprintf(buffer, sizeof(buffer), "%.*e", std::max(0, significant - 1), value);
  const std::string text = buffer;
  const std::size_t e = text.find('e');
  return text.substr(0, e + 1) + std::to_string(std::atoi(text.c_str() + e + 1));
}

int count_ticks(double lo, double hi, double step) {
  return static_cast<int>(std::floor(hi / step + kSlack) - std::ceil(lo / step - kSlack)) + 1;
}

}  // namespace

double nice_step(double lo, double hi, int max_ticks) {
  if (!(std::isfinite(lo) && std::isfinite(hi) && lo < hi) || max_ticks < 2) {
    throw std::invalid_argument("ticks: need finite lo < hi and max_ticks >= 2, got [" + std::to_string(lo) + ", " +
                                std::to_string(hi) + "], " + std::to_string(max_ticks));
  }
  // log10((hi - lo) / max_ticks) in halves: -1.7e308 .. 1.7e308 has no double width.
  const double log_step = std::log10(hi / 2 - lo / 2) + std::log10(2.0 / max_ticks);
  double power = std::pow(10.0, std::floor(log_step) - 1);
  for (;; power *= 10) {
    for (double multiple : {1.0, 2.0, 5.0}) {
      const double step = multiple * power;
      if (count_ticks(lo, hi, step) <= max_ticks) return clean(step);
    }
  }
}

std::vector<double> nice_ticks(double lo, double hi, int max_ticks) {
  const double step = nice_step(lo, hi, max_ticks);
  std::vector<double> ticks;
  const double first = std::ceil(lo / step - kSlack), last = std::floor(hi / step + kSlack);
  // Multiples past 2^53 no longer count up one by one (++k leaves k as it is): a span that
  // narrow for its magnitude has no ticks to give.
  if (!(std::fabs(first) < 1e15 && std::fabs(last) < 1e15)) {
    throw std::invalid_argument("ticks: [" + std::to_string(lo) + ", " + std::to_string(hi) +
                                "] is too narrow for its magnitude");
  }
  for (double k = first; k <= last; ++k) ticks.push_back(clean(k * step));
  return ticks;
}

std::vector<double> log_ticks(double lo, double hi, int max_ticks) {
  if (!(lo > 0 && lo < hi && std::isfinite(hi))) {
    throw std::invalid_argument("ticks: a log axis needs 0 < lo < hi, got [" + std::to_string(lo) + ", " +
                                std::to_string(hi) + "]");
  }
  const auto within = [&](double v) { return v >= lo * (1 - kSlack) && v <= hi * (1 + kSlack); };
  const int first = static_cast<int>(std::floor(std::log10(lo)));
  const int last = static_cast<int>(std::ceil(std::log10(hi)));
  std::vector<double> with_125, decades;
  for (int e = first; e <= last; ++e) {
    for (double multiple : {1.0, 2.0, 5.0}) {
      const double v = clean(multiple * std::pow(10.0, e));
      if (!within(v)) continue;
      with_125.push_back(v);
      if (multiple == 1.0) decades.push_back(v);
    }
  }
  if (with_125.size() >= 2 && static_cast<int>(with_125.size()) <= max_ticks) return with_125;
  if (decades.size() < 2) return nice_ticks(lo, hi, max_ticks);
  const std::size_t stride = (decades.size() + max_ticks - 1) / max_ticks;
  std::vector<double> ticks;
  for (std::size_t i = 0; i < decades.size(); i += stride) ticks.push_back(decades[i]);
  return ticks;
}

std::string format_tick(double value, double step) {
  if (std::fabs(value) < step * 1e-6) value = 0;
  if (value == 0) return "0";
  const double magnitude = std::fabs(value);
  if (magnitude >= 1e6 || step < 1e-4) {
    const int digits = static_cast<int>(std::floor(std::log10(magnitude)) - std::floor(std::log10(step) + kSlack)) + 1;
    return exponent_form(value, std::clamp(digits, 1, 6));
  }
  const int decimals = std::max(0, static_cast<int>(std::ceil(-std::log10(step) - kSlack)));
  char buffer[48];
  std::snprintf(buffer, sizeof(buffer), "%.*f", decimals, value);
  return buffer;
}

std::string format_tick(double value) {
  if (value == 0) return "0";
  const double magnitude = std::fabs(value);
  if (magnitude >= 1e-4 && magnitude < 1e6) {
    char buffer[32];
    std::snprintf(buffer, sizeof(buffer), "%.6g", value);
    return buffer;
  }
  for (int digits = 1;; ++digits) {  // fewest digits that still read back as the value
    const std::string text = exponent_form(value, digits);
    if (digits >= 6 || std::fabs(std::strtod(text.c_str(), nullptr) - value) <= magnitude * 1e-6) {
      return text;
    }
  }
}

}  // namespace dls::util

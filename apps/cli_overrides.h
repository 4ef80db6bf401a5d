// Command-line flags that change one setting after a preset (or a resumed checkpoint's
// settings) is in place: each given flag queues a change, applied in order later.
#pragma once

#include <cmath>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace dls::apps {

template <typename Settings>
using Overrides = std::vector<std::function<void(Settings&)>>;

// Registers --name; when given, `apply(settings, value)` runs at apply_overrides().
template <typename T, typename Settings>
CLI::Option* setting(CLI::App& app, Overrides<Settings>& overrides, const std::string& name, const std::string& help,
                     std::function<void(Settings&, const T&)> apply) {
  return app.add_option_function<T>(
      name,
      [&overrides, apply](const T& value) { overrides.push_back([apply, value](Settings& s) { apply(s, value); }); },
      help);
}

// A number in [lo, hi]. Unlike CLI::Range it refuses NaN and infinities, and it sees the text
// before conversion, so that 99999999999999999999 is refused rather than saturated.
inline CLI::Validator in_range(double lo, double hi) {
  return CLI::Validator(
      [lo, hi](std::string& text) -> std::string {
        double value = 0;
        try {
          std::size_t used = 0;
          value = std::stod(text, &used);
          if (used != text.size()) return "'" + text + "' is not a number";
        } catch (const std::exception&) {
          return "'" + text + "' is not a number";
        }
        if (!std::isfinite(value) || value < lo || value > hi) {
          std::ostringstream range;
          range << text << " is outside [" << lo << ", " << hi << "]";
          return range.str();
        }
        return "";
      },
      "", "in_range");
}

// The values of --optimizer (dls::settings::parse_optimizer).
inline CLI::Validator optimizers() { return CLI::IsMember({"adam", "adamw"}); }

// The values of --log-level (spdlog's level names).
inline CLI::Validator log_levels() {
  return CLI::IsMember({"trace", "debug", "info", "warn", "error", "critical", "off"});
}

template <typename Settings>
void apply_overrides(const Overrides<Settings>& overrides, Settings& settings) {
  for (const auto& apply : overrides) apply(settings);
}

}  // namespace dls::apps

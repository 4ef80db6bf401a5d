// Command-line flags that change one setting after a preset (or a resumed checkpoint's
// settings) is in place: each given flag queues a change, applied in order later. Each
// setting flag also records how to read its value back from the settings, so that a run's
// config.toml can list every setting it ran with (config_file.h). The flags themselves come
// from the settings' declarations (declared_flags.h).
#pragma once

#include <cmath>
#include <functional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>

#include "dls/cli/config_toml.h"

namespace dls::cli {

template <typename Settings>
struct Overrides {
  // A setting's flag (--name) and its value in some settings, as TOML.
  struct Recorded {
    std::string flag;
    std::function<std::string(const Settings&)> toml;
  };
  std::vector<std::function<void(Settings&)>> changes;  // queued by the flags given
  std::vector<Recorded> recorded;                       // every setting flag, in the order of --help
  std::vector<std::string> fixed;                       // the flags of settings a resume may not change

  void push_back(std::function<void(Settings&)> change) { changes.push_back(std::move(change)); }
  // config.toml writes `flag`'s value as toml_value(get(settings)).
  template <typename Get>
  void record(const std::string& flag, Get get) {
    recorded.push_back({flag, [get](const Settings& s) { return toml_value(get(s)); }});
  }
};

// A number in [lo, hi]. Unlike CLI::Range it refuses NaN and infinities, and it sees the text
// before conversion, so that 99999999999999999999 is refused rather than saturated. (Spellings
// such as 010 and 0x10 are refused for every numeric option: number_options.h.)
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

template <typename Settings>
void apply_overrides(const Overrides<Settings>& overrides, Settings& settings) {
  for (const auto& apply : overrides.changes) apply(settings);
}

}  // namespace dls::cli

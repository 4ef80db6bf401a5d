// Command-line flags that change one setting after a preset (or a resumed checkpoint's
// settings) is in place: each given flag queues a change, applied in order later. Each
// setting flag also records how to read its value back from the settings, so that a run's
// config.toml can list every setting it ran with (config_file.h). The flags themselves come
// from the settings' declarations (declared_flags.h).
#pragma once

#include <cctype>
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
        // CLI11 reads an integer written with a leading zero as octal (010: 8); a number here
        // is decimal, so such a spelling is refused rather than read either way.
        const auto digits = text.find_first_not_of("+- ");
        if (digits != std::string::npos && digits + 1 < text.size() && text[digits] == '0' &&
            std::isdigit(static_cast<unsigned char>(text[digits + 1]))) {
          return "'" + text + "' has a leading zero (it would be read as octal): write it without";
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

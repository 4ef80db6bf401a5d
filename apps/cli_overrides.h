// Command-line flags that change one setting after a preset (or a resumed checkpoint's
// settings) is in place: each given flag queues a change, applied in order later.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace dls::apps {

template <typename Settings>
using Overrides = std::vector<std::function<void(Settings&)>>;

// Registers --name; when given, `apply(settings, value)` runs at apply_overrides().
template <typename T, typename Settings>
CLI::Option* setting(CLI::App& app, Overrides<Settings>& overrides, const std::string& name,
                     const std::string& help, std::function<void(Settings&, const T&)> apply) {
  return app.add_option_function<T>(
      name,
      [&overrides, apply](const T& value) {
        overrides.push_back([apply, value](Settings& s) { apply(s, value); });
      },
      help);
}

template <typename Settings>
void apply_overrides(const Overrides<Settings>& overrides, Settings& settings) {
  for (const auto& apply : overrides) apply(settings);
}

}  // namespace dls::apps

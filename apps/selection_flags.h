// --best-metric, --patience and --ema-decay, shared by the trainers (settings/selection_settings.h).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli_overrides.h"
#include "dls/settings/selection_settings.h"

namespace dls::apps {

// `metrics`: the scores this program's evaluation reports, the default first; `selection`
// finds the options inside the program's settings.
template <typename Settings>
void add_selection_flags(CLI::App& app, Overrides<Settings>& overrides, std::vector<std::string> metrics,
                         std::function<dls::settings::SelectionSettings&(Settings&)> selection,
                         const std::string& group) {
  std::string names;
  for (const auto& m : metrics) names += m + ", ";
  metrics.push_back("none");
  setting<std::string, Settings>(
      app, overrides, "--best-metric",
      "validation score that chooses RUN/best.pt: " + names + "or none (default " + metrics.front() + ")",
      [selection](Settings& s, const std::string& v) { selection(s).best_metric = v; })
      ->check(CLI::IsMember(metrics))
      ->group(group);
  setting<std::int64_t, Settings>(app, overrides, "--patience",
                                  "stop after N evaluations in a row without a better --best-metric (0: never)",
                                  [selection](Settings& s, const std::int64_t& v) { selection(s).patience = v; })
      ->check(in_range(0, 1000000))
      ->group(group);
  setting<double, Settings>(app, overrides, "--ema-decay",
                            "keep ema = D*ema + (1-D)*w after every step; evaluate and save it (0: off)",
                            [selection](Settings& s, const double& v) { selection(s).ema_decay = v; })
      ->check(in_range(0, 0.999999))
      ->group(group);
}

}  // namespace dls::apps

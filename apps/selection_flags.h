// --best-metric, --patience and --ema-decay, shared by the trainers (settings/selection_settings.h).
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli_overrides.h"
#include "dls/settings/selection_settings.h"

namespace dls::apps {

// `metrics`: the scores this program's evaluation reports, the default first; `selection`
// finds the options inside the program's settings (a generic lambda returning a reference).
template <typename Settings, typename Selection>
void add_selection_flags(CLI::App& app, Overrides<Settings>& overrides, std::vector<std::string> metrics,
                         Selection selection, const std::string& group) {
  std::string names;
  for (const auto& m : metrics) names += m + ", ";
  metrics.push_back("none");
  setting(
      app, overrides, "--best-metric",
      "validation score that chooses RUN/best.pt: " + names + "or none (default " + metrics.front() + ")",
      [selection](auto& s) -> auto& { return selection(s).best_metric; })
      ->check(CLI::IsMember(metrics))
      ->group(group);
  setting(
      app, overrides, "--patience", "stop after N evaluations in a row without a better --best-metric (0: never)",
      [selection](auto& s) -> auto& { return selection(s).patience; })
      ->check(in_range(0, 1000000))
      ->group(group);
  setting(
      app, overrides, "--ema-decay", "keep ema = D*ema + (1-D)*w after every step; evaluate and save it (0: off)",
      [selection](auto& s) -> auto& { return selection(s).ema_decay; })
      ->check(in_range(0, 0.999999))
      ->group(group);
}

}  // namespace dls::apps

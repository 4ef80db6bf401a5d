// A resume that changes a run's settings (more --epochs, another --lr): config.toml keeps the
// settings the run started with, config.resumed.toml the latest resume's, so that what the run
// became is on disk for people and for compare_runs.
#pragma once

#include <string>
#include <vector>

namespace dls::train {

inline constexpr const char* kResumedConfigFile = "config.resumed.toml";

// The settings of `after` (a config.toml text) whose values differ from `before`'s, as
// "epochs 2 -> 3", in `after`'s order. A setting that only one of them has is left out (a
// resume whose preset is not known writes no preset line). Throws util::TomlError for text
// that is not the TOML of config.toml.
std::vector<std::string> changed_settings(const std::string& before, const std::string& after);

// On a resume in `run_dir`: when `config_toml` (this invocation's settings) changes any of the
// run's latest (config.resumed.toml, else config.toml), writes it as config.resumed.toml,
// headed by `resumed_at` and the changes, and returns the changes; else returns none and
// writes nothing. A run without config.toml (an older one), or an unreadable one: none.
std::vector<std::string> record_resumed_settings(const std::string& run_dir, const std::string& config_toml,
                                                 const std::string& resumed_at);

}  // namespace dls::train

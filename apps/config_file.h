// Configuration files: every program reads --config FILE (TOML, CLI11's format: one
// `name=value` per option, by the long flag's name without dashes), and a training run writes
// the options it ran with into its run directory as config.toml, so that
//   seq2seq_train --config runs/x/config.toml --run-dir runs/y
// repeats run x (flags given on the command line win over the file).
#pragma once

#include <sstream>
#include <string>

#include <CLI/CLI.hpp>

namespace dls::apps {

// --config FILE for `app`. Call after every option is added.
inline void add_config_option(CLI::App& app) {
  app.allow_config_extras(CLI::config_extras_mode::error);  // a misspelt key is an error, not ignored
  app.set_config("--config", "", "read options from a TOML file (e.g. a run directory's config.toml); flags win")
      ->check(CLI::ExistingFile);
}

// Options that are no part of a run's recipe (what to resume, --overwrite, --dry-run):
// never written to config.toml nor read from a config file.
inline void not_in_config(std::initializer_list<CLI::Option*> options) {
  for (auto* option : options) option->configurable(false);
}

// The run's options as TOML: those given (on the command line or in --config) and those
// with a default value (CLI11 writes `name=""` for an option with neither: left out, as
// it would not read back). A setting a flag did not change comes from the preset, which is
// written too, so replaying the file rebuilds the same settings.
inline std::string resolved_config(const CLI::App& app, const std::string& program) {
  std::istringstream lines(app.config_to_str(/*default_also=*/true, /*write_description=*/false));
  std::string toml =
      "# The options of this run. Repeat it with: " + program + " --config config.toml --run-dir NEW_DIR\n";
  for (std::string line; std::getline(lines, line);) {
    if (line.size() < 3 || line.compare(line.size() - 3, 3, "=\"\"") != 0) toml += line + "\n";
  }
  return toml;
}

}  // namespace dls::apps

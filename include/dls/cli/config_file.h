// Configuration files: every program reads --config FILE (one `name=value` per option, by
// the long flag's name without dashes, in the TOML subset of config_toml.h); flags given on
// the command line win over the file. A fresh training run writes config.toml into its run
// directory: its settings after the preset and the flags, so that
//   seq2seq_train --config RUN/config.toml --run-dir NEW     repeats the run, from any folder
//   seq2seq_train --config RUN/config.toml --resume RUN      continues it with the same recipe
//
// What config.toml holds, and why:
// - every setting a flag can change, as the flag's name and its resolved value (the preset
//   expanded: sizes, learning rate, batch size, optimizer, schedule, epochs, seed, data,
//   selection, device, precision, checkpoint and log intervals), and the preset's name,
//   which still gives the settings no flag reaches;
// - every path absolute (--data, --data-dir, --run-dir), so that the file works from any folder;
// - --max-iters and --time-limit: they are how the run was asked to stop, and both count the
//   whole run (steps in all, seconds in all), so replaying them fresh stops at the same place
//   and on resume stops where the recipe meant to (a flag moves the limit);
// - nothing about one invocation: not --threads, --workers, --json, --log-level, --resume,
//   --overwrite, --dry-run, nor the data-parallel flags (how this machine spreads the work;
//   the run's result does not depend on them). Files that list them (older config.toml) are
//   still read, and those keys apply as flags would.
// On resume, the run is the checkpoint's: a --run-dir from the file is ignored (the run may
// have moved), and a setting the checkpoint fixes may come from the file only with the
// checkpoint's own value (check_fixed_on_resume).
#pragma once

#include <initializer_list>
#include <memory>
#include <stdexcept>
#include <string>

#include <filesystem>
#include <string>
#include <system_error>

#include <CLI/CLI.hpp>

#include "dls/cli/overrides.h"
#include "dls/cli/config_toml.h"

namespace dls::cli {

// --config FILE for `app`; `example`: a file to name in --help (a trainer's "a run
// directory's config.toml"). Call after every option is added.
inline void add_config_option(CLI::App& app, const std::string& example = "") {
  app.allow_config_extras(CLI::config_extras_mode::error);  // a misspelt key is an error, not ignored
  app.set_config("--config", "",
                 "read options from a TOML file (name = value by the long flags' names" +
                     (example.empty() ? std::string() : "; e.g. " + example) + "); flags win")
      ->check(CLI::Validator(
          [](const std::string& path) -> std::string {
            // A pipe is read as `cat` reads it (--config <(...), --config /dev/stdin); a named
            // FIFO waits for its writer as it would.
            std::error_code error;
            if (!std::filesystem::exists(path, error)) return path + ": no such file";
            if (std::filesystem::is_directory(path, error)) return path + ": a directory, not a file";
            return "";
          },
          "FILE"));
  app.config_formatter(std::make_shared<ConfigToml>(app));
}

// Options that are no part of a run's recipe (what to resume, --overwrite, --dry-run):
// never written to config.toml nor read from a config file.
inline void not_in_config(std::initializer_list<CLI::Option*> options) {
  for (auto* option : options) option->configurable(false);
}

// Whether `flag` (e.g. "--run-dir") took its value from the --config file.
inline bool from_config_file(const CLI::App& app, const std::string& flag) {
  const auto toml = std::dynamic_pointer_cast<ConfigToml>(app.get_config_formatter());
  return toml != nullptr && toml->gave(flag.substr(flag.find_first_not_of('-')));
}

// Whether `flag` was typed on the command line: given, and not by the --config file (every
// config.toml records every setting, so a refusal of a flag a run does not read is for typed ones).
inline bool typed_on_command_line(const CLI::App& app, const std::string& flag) {
  return app.count(flag) > 0 && !from_config_file(app, flag);
}

// config.toml of a run with `settings`: every recorded setting, in the order of --help.
template <typename Settings>
std::string resolved_config(const Overrides<Settings>& overrides, const Settings& settings,
                            const std::string& program) {
  std::string toml = "# " + program +
                     "'s settings for this run, after its preset and flags (config_file.h).\n"
                     "# Repeat it from any folder: " +
                     program + " --config RUN/config.toml --run-dir NEW_DIR\n" + "# Continue it: " + program +
                     " --config RUN/config.toml --resume RUN\n";
  for (const auto& setting : overrides.recorded) {
    const auto value = setting.toml(settings);
    // A resumed run whose preset is not known (no config.toml to say): no preset line, which
    // a file read back would refuse as no preset's name; the file sets every setting anyway.
    if (setting.flag == "--preset" && value == "\"\"") continue;
    toml += setting.flag.substr(2) + "=" + value + "\n";
  }
  return toml;
}

// On resume, the settings the checkpoint fixes (those declared fixed, util/declared.h,
// and the program's own `also_fixed`, by flag): one given on the command line is refused;
// one from the config file must have the checkpoint's value (`resumed`: the settings before
// the flags; `asked`: after), as a run's own config.toml has.
template <typename Settings>
void check_fixed_on_resume(const CLI::App& app, const Overrides<Settings>& overrides, const Settings& resumed,
                           const Settings& asked, std::initializer_list<const char*> also_fixed = {}) {
  for (const auto& setting : overrides.recorded) {
    bool is_fixed = false;
    for (const auto& flag : overrides.fixed) is_fixed = is_fixed || setting.flag == flag;
    for (const char* flag : also_fixed) is_fixed = is_fixed || setting.flag == flag;
    if (!is_fixed || app.count(setting.flag) == 0) continue;
    const auto theirs = setting.toml(resumed), ours = setting.toml(asked);
    if (!from_config_file(app, setting.flag)) {
      throw std::runtime_error(setting.flag + ": fixed by the checkpoint when resuming (the run has " + theirs +
                               (ours == theirs ? "" : ", asked " + ours) + ")");
    }
    if (ours != theirs) {
      throw std::runtime_error(config_label(app) + ": " + setting.flag.substr(2) + "=" + ours +
                               ", but the checkpoint has " + theirs + " (fixed by the checkpoint when resuming)");
    }
  }
}

}  // namespace dls::cli

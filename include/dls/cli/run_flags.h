// What every training program adds to its settings' flags: this invocation's own
// (settings/invocation.h: --resume, --threads, --workers, --overwrite, --dry-run, --json,
// --log-level), the settings a run starts from, and its exit status. The RunSettings' flags (--device, --precision,
// --run-dir, the intervals, the limits, the data-parallel flags) are declared with it (settings/run_settings.h).
//
// One rule for every setting on resume: the settings start from the preset, or from the
// resumed checkpoint's (RunSettings::resume_defaults() for the run's), and each flag given
// changes one of them afterwards (overrides.h); a setting the checkpoint fixes is refused
// by the program, never ignored.
#pragma once

#include <cstdint>
#include <cstdio>
#include <initializer_list>
#include <iostream>
#include <optional>
#include <stdexcept>
#include <string>

#include <CLI/CLI.hpp>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include "dls/checkpoint/opened_checkpoint.h"
#include "dls/cli/command_line.h"
#include "dls/cli/config_file.h"
#include "dls/cli/overrides.h"
#include "dls/cli/error_line.h"
#include "dls/train/loop_state.h"
#include "dls/train/stop_signals.h"
#include "dls/settings/invocation.h"
#include "dls/settings/run_settings.h"
#include "dls/util/precision.h"
#include "dls/util/runtime.h"

namespace dls::cli {

// The end of every trainer's --help: how it exits (error_line.h, train/stop_signals.h).
inline constexpr const char* kTrainerExitStatus =
    "Exit status: 0 done, 1 error, usage errors included (one line on stderr), 3 training diverged\n"
    "(NaN loss), 130/143/129 stopped by SIGINT/SIGTERM/SIGHUP (after writing a checkpoint).";

using settings::Invocation;

// Options that are no part of a run's recipe (what to resume, --overwrite, --dry-run): never
// written to config.toml nor read from a config file (config_file.h).
inline void keep_invocation_flags_out_of_config(CLI::App& app) {
  not_in_config({app.get_option("--resume"), app.get_option("--overwrite"), app.get_option("--dry-run")});
}

// The end of a trainer's command line, once its flags are added: --version, --config (without
// the invocation's flags that are no part of a recipe), the exit statuses at the end of
// --help, then the parse. Returns the exit status when the program is to stop here
// (parse_command_line); otherwise the program's messages go to stderr under its name, and
// nullopt.
inline std::optional<int> parse_trainer_command_line(CLI::App& app, const std::string& program, int argc, char** argv) {
  app.footer(kTrainerExitStatus);
  add_version_flag(app, program);
  keep_invocation_flags_out_of_config(app);
  add_config_option(app, "a run directory's config.toml");
  if (auto stop = parse_command_line(app, argc, argv)) return stop;
  spdlog::set_default_logger(spdlog::stderr_color_mt(program));
  return std::nullopt;
}

// The run's logging and threads, before anything else logs: returns the threads in use.
inline int configure_invocation(const Invocation& invocation) {
  util::RuntimeOptions runtime;
  runtime.threads = invocation.threads;
  runtime.log_level = invocation.log_level;
  return util::configure_runtime(runtime).threads;
}

// The invocation's own fields of `run`, once the settings are in place (after the
// overrides): what to resume, --overwrite, --dry-run, and the batch-chunk
// workers (`default_workers` unless --workers was given), and `config_toml`. A resume writes
// into the checkpoint's run unless --run-dir is given on the command line (config_file.h),
// and refuses --init-from on the command line (from the run's config.toml it is where the
// run began, and dropped).
inline void finish_run_settings(const CLI::App& app, settings::RunSettings& run, const Invocation& invocation,
                                int default_workers, std::string config_toml) {
  if (!invocation.resume.empty() && from_config_file(app, "--run-dir")) run.run_dir.clear();
  if (!invocation.resume.empty() && !run.init_from.empty()) {
    if (!from_config_file(app, "--init-from")) {
      throw std::runtime_error("--init-from: starts a new run from another run's weights; --resume continues this one");
    }
    run.init_from.clear();  // the run's config.toml: it began there
  }
  run.resume = invocation.resume;
  run.overwrite = invocation.overwrite;
  run.dry_run = invocation.dry_run;
  run.workers = invocation.workers > 0 ? invocation.workers : default_workers;
  run.config_toml = std::move(config_toml);
}

// The settings of a run before and after its flags: `fresh()` gives a new run's (a preset),
// `read(reader)` a resumed one's from its checkpoint (with RunSettings::resume_defaults()),
// which `resume` opens (of `kind`) and keeps for the trainer, so that the file is read once;
// each flag given then changes one setting, and a resume refuses in one line a flag whose
// setting the checkpoint fixes (`also_fixed`: the flags that choose the preset).
template <typename Settings>
struct FlaggedSettings {
  Settings preset;    // before the flags: the preset's or the checkpoint's
  Settings settings;  // after them
};

template <typename Settings, typename Read, typename Fresh>
FlaggedSettings<Settings> settings_from_flags(const CLI::App& app, const Overrides<Settings>& overrides,
                                              const Invocation& invocation, checkpoint::OpenedCheckpoint& resume,
                                              const std::string& kind, Read read, Fresh fresh,
                                              std::initializer_list<const char*> also_fixed) {
  FlaggedSettings<Settings> flagged;
  if (invocation.resume.empty()) {
    flagged.preset = fresh();
  } else {
    flagged.preset = read(resume.open(invocation.resume, kind));
    flagged.preset.run = flagged.preset.run.resume_defaults();
  }
  flagged.settings = flagged.preset;
  apply_overrides(overrides, flagged.settings);
  if (!invocation.resume.empty()) check_fixed_on_resume(app, overrides, flagged.preset, flagged.settings, also_fixed);
  return flagged;
}

// --json: a trainer's result as one JSON line on stdout, written by the first rank alone.
// Returns 0, the exit status of a run that ended.
template <typename Result>
int print_training_result(const Invocation& invocation, const Result& result, const settings::RunSettings& run) {
  if (invocation.json && result.parallel.rank == 0) {
    std::cout << result.json(util::precision_name(run.precision)) << std::endl;
  }
  return 0;
}

// Runs `train` (the program after its command line: returns the exit status) and ends as
// kTrainerExitStatus says: a signal's interruption with 128+N after its line, a diverged
// run with 3, any other error with its one line and 1.
template <typename Train>
int exit_status_of_training(Train train) {
  try {
    return status_after_standard_output(train());
  } catch (const train::TrainingInterrupted& stopped) {
    std::fprintf(stderr, "interrupted: %s\n", stopped.what());
    return stopped.exit_status();
  } catch (const train::TrainingDiverged& error) {
    std::fprintf(stderr, "error: %s\n", error.what());
    return 3;
  } catch (const std::exception& error) {
    return print_error_line(error);
  }
}

}  // namespace dls::cli

// seq2seq_train's learning-rate flags that the chosen schedule does not read
// (settings::LrSchedule::unread_flags: --lr and --min-lr for DLStudio's warm-up, --min-lr for
// a constant rate): typed, one would be printed, saved and ignored.
#pragma once

#include <stdexcept>

#include <CLI/CLI.hpp>

#include "dls/cli/config_file.h"
#include "dls/settings/lr_schedule.h"

namespace dls::apps {

// Refuses, in one line, such a flag typed on the command line (a config file's, which every
// config.toml records, are left alone).
inline void check_schedule_flags(const CLI::App& app, const settings::LrSchedule& schedule) {
  for (const auto& [flag, why] : schedule.unread_flags()) {
    if (cli::typed_on_command_line(app, flag)) throw std::runtime_error(flag + ": " + why);
  }
}

}  // namespace dls::apps

// seq2seq_train's learning-rate flags that a schedule does not read: DLStudio's warm-up
// (--schedule dlstudio-warmup, the dlstudio preset's) makes its own rate from the model's
// width and --warmup, so a typed --lr or --min-lr would be printed, saved and ignored.
#pragma once

#include <stdexcept>
#include <string>

#include <CLI/CLI.hpp>

#include "dls/cli/config_file.h"
#include "dls/settings/lr_schedule.h"

namespace dls::apps {

// Refuses, in one line, --lr and --min-lr typed on the command line for a schedule that does
// not read them (a config file's, which every config.toml records, are left alone).
inline void check_schedule_flags(const CLI::App& app, const settings::LrSchedule& schedule) {
  if (schedule.kind != settings::ScheduleKind::kDLStudioWarmup) return;
  for (const char* flag : {"--lr", "--min-lr"}) {
    if (app.count(flag) > 0 && !cli::from_config_file(app, flag)) {
      throw std::runtime_error(std::string(flag) +
                               ": not read by --schedule dlstudio-warmup, whose rate is 2 M^-0.5 min(s^-0.5, "
                               "s w^-1.5) (the model's width M, --warmup w); for a rate of your own: --schedule "
                               "constant or cosine");
    }
  }
}

}  // namespace dls::apps

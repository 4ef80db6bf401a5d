#include "dls/settings/run_settings.h"

#include <stdexcept>

namespace dls::settings {

util::KeyValues RunSettings::to_settings() const {
  util::KeyValues settings;
  settings.set("device", device);
  settings.set("precision", util::precision_name(precision));
  settings.set("checkpoint_every", checkpoint_every);
  settings.set("keep_last", keep_last);
  settings.set("log_every", log_every);
  return settings;
}

RunSettings RunSettings::from_settings(const util::KeyValues& settings, const RunSettings& defaults) {
  RunSettings run = defaults;
  if (settings.has("device")) run.device = settings.get("device");
  if (settings.has("precision")) {
    try {
      run.precision = util::parse_precision(settings.get("precision"));
    } catch (const std::invalid_argument& error) {
      throw std::runtime_error("precision: " + std::string(error.what()));
    }
  }
  if (settings.has("checkpoint_every")) run.checkpoint_every = settings.get_int("checkpoint_every");
  // Not the default's: a run whose checkpoints do not say kept every checkpoint, and still does.
  run.keep_last = settings.has("keep_last") ? static_cast<int>(settings.get_int("keep_last")) : 0;
  if (settings.has("log_every")) run.log_every = settings.get_int("log_every");
  return run;
}

RunSettings RunSettings::resume_defaults() const {
  RunSettings run;
  run.device = device;
  run.precision = precision;
  run.checkpoint_every = checkpoint_every;
  run.keep_last = keep_last;
  run.log_every = log_every;
  return run;
}

}  // namespace dls::settings

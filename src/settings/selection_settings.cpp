#include "dls/settings/selection_settings.h"

namespace dls::settings {

util::KeyValues SelectionSettings::to_settings() const {
  util::KeyValues settings;
  settings.set("best_metric", best_metric);
  settings.set("patience", patience);
  settings.set("ema_decay", ema_decay);
  return settings;
}

SelectionSettings SelectionSettings::from_settings(const util::KeyValues& settings, const SelectionSettings& defaults) {
  SelectionSettings options = defaults;
  if (settings.has("best_metric")) options.best_metric = settings.get("best_metric");
  if (settings.has("patience")) options.patience = settings.get_int("patience");
  if (settings.has("ema_decay")) options.ema_decay = settings.get_double("ema_decay");
  return options;
}

}  // namespace dls::settings

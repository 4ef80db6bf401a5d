// LmTrainSettings: checkpoint settings, start-up description.
#include "dls/settings/lm_settings.h"

namespace dls::settings {

util::KeyValues LmTrainSettings::to_settings() const {
  util::KeyValues s;
  s.merge(model.to_settings(), "model");
  s.merge(saved_settings(*this));
  return s;
}

LmTrainSettings LmTrainSettings::from_settings(const util::KeyValues& s) {
  LmTrainSettings settings;
  settings.model = LanguageModelConfig::from_settings(s.section("model"));
  settings.run.run_dir.clear();  // a checkpoint's run is where it is
  read_saved_settings(s, settings);
  return settings;
}

std::string LmTrainSettings::describe() const {
  std::string text = "preset " + preset + "; model " + model.summary();
  for (const auto& line : describe_settings(*this)) text += "\n" + line;
  return text;
}

}  // namespace dls::settings

// LmTrainSettings: checkpoint settings, start-up description.
#include "dls/settings/lm_settings.h"

#include <sstream>

namespace dls::settings {

util::KeyValues LmTrainSettings::to_settings() const {
  util::KeyValues s;
  s.merge(model.to_settings(), "model");
  const auto saved = saved_settings(*this);
  for (const auto& [key, value] : saved.entries()) s.set(key, value);
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
  std::ostringstream out;
  out << "preset " << preset << "; model " << model.summary() << "\n"
      << "data " << data.path << " (side " << data.side << ", at most " << data.max_words << " words, "
      << data.validation_sentences << " validation sentences, split seed " << data.split_seed << "; ";
  if (data.subword_units) {
    out << "SentencePiece " << data::to_string(data.subwords.kind) << ", " << data.subwords.vocab_size << " pieces)\n";
  } else {
    out << "words)\n";
  }
  out << "optimizer " << to_string(optimizer.kind) << " lr=" << lr << " betas=" << optimizer.beta1 << "/"
      << optimizer.beta2 << " eps=" << optimizer.eps << " weight_decay=" << optimizer.weight_decay
      << " clip=" << optimizer.clip_grad_norm << "; schedule " << to_string(schedule);
  if (schedule == ScheduleKind::kWarmupCosine)
    out << " (warm-up " << warmup_steps << " steps, min_lr " << min_lr << ")";
  out << "; batch " << batch_size << ", " << epochs << " epochs, label smoothing " << label_smoothing << ", seed "
      << seed;
  return out.str();
}

}  // namespace dls::settings

// LmTrainSettings: checkpoint settings, start-up description.
#include "dls/settings/lm_settings.h"

#include <stdexcept>

namespace dls::settings {

using util::describe_settings;
using util::read_saved_settings;
using util::saved_settings;

util::KeyValues LmTrainSettings::to_settings() const { return saved_settings(*this); }

LmTrainSettings LmTrainSettings::from_settings(const util::KeyValues& s) {
  LmTrainSettings settings;
  settings.run.run_dir.clear();  // a checkpoint's run is where it is
  read_saved_settings(s, settings);
  return settings;
}

std::string LmTrainSettings::describe() const {
  std::string text = "preset " + preset + "; model " + model.summary();
  for (const auto& line : describe_settings(*this)) text += "\n" + line;
  return text;
}

void LmTrainSettings::check_data(const LmTrainSettings& preset, bool resuming) const {
  const data::SubwordOptions defaults;
  if (!data.subword_units && !resuming) {
    if (data.subwords.kind != defaults.kind) throw std::runtime_error("--spm-model: needs --tokenizer sentencepiece");
    if (data.subwords.vocab_size != defaults.vocab_size)
      throw std::runtime_error("--vocab-size: needs --tokenizer sentencepiece");
  }
  if (data.subword_units && data.vocabulary_limits().any()) {
    throw std::runtime_error(std::string(data.min_count > 1 ? "--min-count" : "--max-vocab") +
                             ": words or characters only; with --tokenizer sentencepiece, --vocab-size sizes the "
                             "vocabulary");
  }
  const auto& before = preset.data;
  const bool running = data.block_size > 0;
  if (running && data.max_words != before.max_words)
    throw std::runtime_error("--max-words: sentences only; running text (--block-size) is read in windows");
  if (running && data.validation_sentences != before.validation_sentences)
    throw std::runtime_error("--validation-sentences: sentences only; running text holds out --validation-fraction");
  if (!running && data.validation_fraction != before.validation_fraction)
    throw std::runtime_error("--validation-fraction: needs --block-size (sentences hold out --validation-sentences)");
}

}  // namespace dls::settings

// LmTrainSettings: checkpoint settings, start-up description.
#include "dls/settings/lm_settings.h"

#include <sstream>

#include "dls/settings/seq2seq_settings.h"  // parse_tokenizer

namespace dls::settings {

util::KeyValues LmTrainSettings::to_settings() const {
  util::KeyValues s;
  s.merge(model.to_settings(), "model");
  util::KeyValues d;
  d.set("path", data.path);
  d.set("side", data.side);
  d.set("max_words", static_cast<std::int64_t>(data.max_words));
  d.set("tokenizer", data.subword_units ? "sentencepiece" : "word");
  d.set("subwords.model", data::to_string(data.subwords.kind));
  d.set("subwords.vocab_size", static_cast<std::int64_t>(data.subwords.vocab_size));
  d.set("validation_sentences", std::to_string(data.validation_sentences));
  d.set("split_seed", std::to_string(data.split_seed));
  s.merge(d, "data");
  s.merge(optimizer.to_settings(), "optimizer");
  util::KeyValues t;
  t.set("preset", preset);
  t.set("batch_size", batch_size);
  t.set("epochs", epochs);
  t.set("schedule", to_string(schedule));
  t.set("lr", lr);
  t.set("min_lr", min_lr);
  t.set("warmup_steps", warmup_steps);
  t.set("label_smoothing", label_smoothing);
  t.set("seed", std::to_string(seed));
  s.merge(t, "train");
  s.merge(selection.to_settings(), "selection");
  s.merge(run.to_settings(), "run");
  return s;
}

LmTrainSettings LmTrainSettings::from_settings(const util::KeyValues& s) {
  LmTrainSettings settings;
  settings.model = LanguageModelConfig::from_settings(s.section("model"));
  const auto d = s.section("data");
  settings.data.path = d.get("path");
  settings.data.side = d.get("side");
  settings.data.max_words = static_cast<int>(d.get_int("max_words"));
  if (d.has("tokenizer")) {  // checkpoints written before subword units were all word level
    settings.data.subword_units = parse_tokenizer(d.get("tokenizer"));
    settings.data.subwords.kind = data::parse_subword_kind(d.get("subwords.model"));
    settings.data.subwords.vocab_size = static_cast<int>(d.get_int("subwords.vocab_size"));
  }
  settings.data.validation_sentences = std::stoull(d.get("validation_sentences"));
  settings.data.split_seed = std::stoull(d.get("split_seed"));
  settings.optimizer = OptimizerSettings::from_settings(s.section("optimizer"));
  const auto t = s.section("train");
  settings.preset = t.get("preset");
  settings.batch_size = t.get_int("batch_size");
  settings.epochs = t.get_int("epochs");
  settings.schedule = parse_schedule(t.get("schedule"));
  settings.lr = t.get_double("lr");
  settings.min_lr = t.get_double("min_lr");
  settings.warmup_steps = t.get_int("warmup_steps");
  settings.label_smoothing = t.get_double("label_smoothing");
  settings.seed = std::stoull(t.get("seed"));
  settings.selection = SelectionSettings::from_settings(s.section("selection"), settings.selection);
  settings.run = RunSettings::from_settings(s.section("run"), settings.run);  // older checkpoints: none
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

#include "dls/settings/seq2seq_settings.h"

#include <stdexcept>
#include <utility>

namespace dls::settings {

bool parse_tokenizer(const std::string& name) {
  if (name == "word" || name == "sentencepiece") return name == "sentencepiece";
  throw std::invalid_argument("unknown tokenizer '" + name + "' (expected word or sentencepiece)");
}

util::KeyValues Seq2SeqTrainSettings::to_settings() const {
  util::KeyValues s;  // all but the model, under "training."
  s.set("data_path", data.data_path);
  s.set("train_src", data.train_src);
  s.set("train_tgt", data.train_tgt);
  s.set("valid_src", data.valid_src);
  s.set("valid_tgt", data.valid_tgt);
  s.set("test_src", data.test_src);
  s.set("test_tgt", data.test_tgt);
  s.set("src_column", data.src_column);
  s.set("tgt_column", data.tgt_column);
  s.set("src_lang", data.src_lang);
  s.set("tgt_lang", data.tgt_lang);
  s.set("reverse", data.reverse);
  s.set("max_words", data.max_words);
  s.set("split_seed", std::to_string(data.split_seed));
  s.set("validation_pairs", data.validation_pairs);
  s.set("validation_fraction", data.validation_fraction);
  s.set("dlstudio_loss", dlstudio_loss);
  s.set("tokenizer", data.subword_units ? "sentencepiece" : "word");
  s.set("subwords.model", data::to_string(data.subwords.kind));
  s.set("subwords.vocab_size", data.subwords.vocab_size);
  s.set("subwords.joint", data.subwords.joint);
  s.set("epochs", epochs);
  s.set("batch_size", batch_size);
  s.set("max_tokens", max_tokens);
  s.set("length_buckets", length_buckets);
  s.set("static_shapes", static_shapes);
  s.set("schedule.kind", to_string(schedule.kind));
  s.set("schedule.base_lr", schedule.base_lr);
  s.set("schedule.warmup_steps", schedule.warmup_steps);
  s.set("schedule.total_steps", schedule.total_steps);
  s.set("schedule.min_lr", schedule.min_lr);
  s.set("schedule.embedding_size", schedule.embedding_size);
  s.merge(optimizer.to_settings(), "optimizer");
  s.set("label_smoothing", label_smoothing);
  s.set("seed", std::to_string(seed));
  s.merge(selection.to_settings(), "selection");
  s.set("samples", samples);
  s.set("bleu_sentences", bleu_sentences);
  s.merge(run.to_settings(), "run");
  util::KeyValues all;
  all.merge(model.to_settings(), "model");
  all.merge(s, "training");
  return all;
}

Seq2SeqTrainSettings Seq2SeqTrainSettings::from_settings(const util::KeyValues& all) {
  Seq2SeqTrainSettings o;
  const auto model_keys = all.section("model");
  const auto s = all.section("training");
  o.model = Seq2SeqConfig::from_settings(model_keys);
  o.data.data_path = s.get("data_path");
  // Checkpoints written before other languages and parallel files: English -> Spanish, one TSV file.
  if (s.has("src_lang")) {
    const std::pair<const char*, std::string*> texts[] = {
        {"train_src", &o.data.train_src}, {"train_tgt", &o.data.train_tgt}, {"valid_src", &o.data.valid_src},
        {"valid_tgt", &o.data.valid_tgt}, {"test_src", &o.data.test_src},   {"test_tgt", &o.data.test_tgt},
        {"src_lang", &o.data.src_lang},   {"tgt_lang", &o.data.tgt_lang}};
    for (const auto& [key, field] : texts) *field = s.get(key);
    o.data.src_column = static_cast<int>(s.get_int("src_column"));
    o.data.tgt_column = static_cast<int>(s.get_int("tgt_column"));
    o.data.reverse = s.get_bool("reverse");
  }
  o.data.max_words = static_cast<int>(s.get_int("max_words"));
  o.data.split_seed = std::stoull(s.get("split_seed"));
  o.data.validation_pairs = s.get_int("validation_pairs");
  // Checkpoints written before the fraction held out validation_pairs exactly.
  o.data.validation_fraction = s.has("validation_fraction") ? s.get_double("validation_fraction") : 0.0;
  o.dlstudio_loss = s.get_bool("dlstudio_loss");
  // Written before the model said so: DLStudio's loss meant DLStudio's outputs then too
  // (its <pad>/<unk> columns, never a target, now out of the softmax as in the export).
  if (!model_keys.has("dlstudio_outputs")) o.model.dlstudio_outputs(o.dlstudio_loss);
  // Checkpoints written before subword units were all word level.
  if (s.has("tokenizer")) {
    o.data.subword_units = parse_tokenizer(s.get("tokenizer"));
    o.data.subwords.kind = data::parse_subword_kind(s.get("subwords.model"));
    o.data.subwords.vocab_size = static_cast<int>(s.get_int("subwords.vocab_size"));
    o.data.subwords.joint = s.get_bool("subwords.joint");
  }
  o.epochs = s.get_int("epochs");
  o.batch_size = s.get_int("batch_size");
  o.max_tokens = s.has("max_tokens") ? s.get_int("max_tokens") : 0;
  o.length_buckets = s.has("length_buckets") && s.get_bool("length_buckets");  // older checkpoints: padded to L
  o.static_shapes = s.has("static_shapes") && s.get_bool("static_shapes");
  o.schedule.kind = parse_schedule(s.get("schedule.kind"));
  o.schedule.base_lr = s.get_double("schedule.base_lr");
  o.schedule.warmup_steps = s.get_int("schedule.warmup_steps");
  o.schedule.total_steps = s.get_int("schedule.total_steps");
  o.schedule.min_lr = s.get_double("schedule.min_lr");
  o.schedule.embedding_size = s.get_int("schedule.embedding_size");
  o.optimizer = OptimizerSettings::from_settings(s.section("optimizer"));
  o.label_smoothing = s.get_double("label_smoothing");
  o.seed = std::stoull(s.get("seed"));
  o.selection = SelectionSettings::from_settings(s.section("selection"), o.selection);
  o.samples = s.get_int("samples");
  o.bleu_sentences = s.get_int("bleu_sentences");
  // Checkpoints written before RunSettings kept its saved fields beside the others.
  RunSettings legacy = o.run;
  if (s.has("device")) legacy.device = s.get("device");
  if (s.has("checkpoint_every")) legacy.checkpoint_every = s.get_int("checkpoint_every");
  if (s.has("log_every")) legacy.log_every = s.get_int("log_every");
  o.run = RunSettings::from_settings(s.section("run"), legacy);
  if (s.has("keep_last")) o.run.keep_last = static_cast<int>(s.get_int("keep_last"));
  return o;
}

}  // namespace dls::settings

#include "dls/checkpoint/seq2seq_options.h"

#include <stdexcept>

namespace dls::checkpoint {

bool parse_tokenizer(const std::string& name) {
  if (name == "word" || name == "sentencepiece") return name == "sentencepiece";
  throw std::invalid_argument("unknown tokenizer '" + name + "' (expected word or sentencepiece)");
}

util::KeyValues Seq2SeqTrainOptions::to_settings() const {
  util::KeyValues s;
  s.set("data_path", data_path);
  s.set("max_words", max_words);
  s.set("split_seed", std::to_string(split_seed));
  s.set("validation_pairs", validation_pairs);
  s.set("dlstudio_loss", dlstudio_loss);
  s.set("tokenizer", subword_units ? "sentencepiece" : "word");
  s.set("subwords.model", data::to_string(subwords.kind));
  s.set("subwords.vocab_size", subwords.vocab_size);
  s.set("subwords.joint", subwords.joint);
  s.set("epochs", epochs);
  s.set("batch_size", batch_size);
  s.set("length_buckets", length_buckets);
  s.set("max_iters", max_iters);
  s.set("time_limit_s", time_limit_s);
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
  s.set("run_dir", run_dir);
  s.set("checkpoint_every", checkpoint_every);
  s.set("keep_last", keep_last);
  s.set("log_every", log_every);
  s.set("samples", samples);
  s.set("bleu_sentences", bleu_sentences);
  s.set("device", device);
  return s;
}

Seq2SeqTrainOptions Seq2SeqTrainOptions::from_settings(const util::KeyValues& s) {
  Seq2SeqTrainOptions o;
  o.data_path = s.get("data_path");
  o.max_words = static_cast<int>(s.get_int("max_words"));
  o.split_seed = std::stoull(s.get("split_seed"));
  o.validation_pairs = s.get_int("validation_pairs");
  o.dlstudio_loss = s.get_bool("dlstudio_loss");
  // Checkpoints written before subword units were all word level.
  if (s.has("tokenizer")) {
    o.subword_units = parse_tokenizer(s.get("tokenizer"));
    o.subwords.kind = data::parse_subword_kind(s.get("subwords.model"));
    o.subwords.vocab_size = static_cast<int>(s.get_int("subwords.vocab_size"));
    o.subwords.joint = s.get_bool("subwords.joint");
  }
  o.epochs = s.get_int("epochs");
  o.batch_size = s.get_int("batch_size");
  o.length_buckets = s.has("length_buckets") && s.get_bool("length_buckets");  // older checkpoints: padded to L
  o.max_iters = s.get_int("max_iters");
  o.time_limit_s = s.get_double("time_limit_s");
  o.schedule.kind = parse_schedule(s.get("schedule.kind"));
  o.schedule.base_lr = s.get_double("schedule.base_lr");
  o.schedule.warmup_steps = s.get_int("schedule.warmup_steps");
  o.schedule.total_steps = s.get_int("schedule.total_steps");
  o.schedule.min_lr = s.get_double("schedule.min_lr");
  o.schedule.embedding_size = s.get_int("schedule.embedding_size");
  o.optimizer = OptimizerOptions::from_settings(s.section("optimizer"));
  o.label_smoothing = s.get_double("label_smoothing");
  o.seed = std::stoull(s.get("seed"));
  o.selection = SelectionOptions::from_settings(s.section("selection"), o.selection);
  o.run_dir = s.get("run_dir");
  o.checkpoint_every = s.get_int("checkpoint_every");
  o.keep_last = static_cast<int>(s.get_int("keep_last"));
  o.log_every = s.get_int("log_every");
  o.samples = s.get_int("samples");
  o.bleu_sentences = s.get_int("bleu_sentences");
  o.device = s.get("device");
  return o;
}

}  // namespace dls::checkpoint

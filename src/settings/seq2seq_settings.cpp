#include "dls/settings/seq2seq_settings.h"

namespace dls::settings {

util::KeyValues Seq2SeqTrainSettings::to_settings() const {
  util::KeyValues all;
  all.merge(model.to_settings(), "model");
  // "training.*", and "rnn.*" for an RNN's run only (a transformer's checkpoints keep the keys they always had).
  const bool rnn = architecture == Architecture::kRnnAttention;
  const auto saved = saved_settings(*this);
  for (const auto& [key, value] : saved.entries()) {
    if (rnn || key.rfind("rnn.", 0) != 0) all.set(key, value);
  }
  return all;
}

RnnSeq2SeqConfig Seq2SeqTrainSettings::rnn_config() const {
  auto config = rnn;
  config.source_vocab = model.src_vocab_size();
  config.target_vocab = model.tgt_vocab_size();
  config.max_seq_length = model.transformer().max_seq_length();
  return config;
}

TranslationModel Seq2SeqTrainSettings::build_model() const {
  if (architecture == Architecture::kRnnAttention) return RnnSeq2Seq(rnn_config());
  return Seq2SeqTransformer(model);
}

std::string Seq2SeqTrainSettings::model_summary() const {
  return architecture == Architecture::kRnnAttention ? rnn.summary() : model.summary();
}

Seq2SeqTrainSettings Seq2SeqTrainSettings::from_settings(const util::KeyValues& all) {
  Seq2SeqTrainSettings o;
  const auto model_keys = all.section("model");
  const auto s = all.section("training");
  o.model = Seq2SeqConfig::from_settings(model_keys);
  o.run.run_dir.clear();  // a checkpoint's run is where it is
  // Checkpoints written before RunSettings kept its saved fields beside the others.
  if (s.has("device")) o.run.device = s.get("device");
  if (s.has("checkpoint_every")) o.run.checkpoint_every = s.get_int("checkpoint_every");
  if (s.has("log_every")) o.run.log_every = s.get_int("log_every");
  read_saved_settings(all, o);
  if (s.has("keep_last") && !s.has("run.keep_last")) o.run.keep_last = static_cast<int>(s.get_int("keep_last"));
  // Written before the model said so: DLStudio's loss meant DLStudio's outputs then too
  // (its <pad>/<unk> columns, never a target, now out of the softmax as in the export).
  if (!model_keys.has("dlstudio_outputs")) o.model.dlstudio_outputs(o.dlstudio_loss);
  return o;
}

}  // namespace dls::settings

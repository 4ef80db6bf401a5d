#include "dls/settings/seq2seq_settings.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>

#include <spdlog/spdlog.h>

#include "dls/data/languages.h"

namespace dls::settings {

using util::read_saved_settings;
using util::saved_settings;

util::KeyValues Seq2SeqTrainSettings::to_settings() const {
  util::KeyValues all;
  // "rnn.*" for an RNN's run only (a transformer's checkpoints keep the keys they always had).
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

void Seq2SeqTrainSettings::check_architecture(const Seq2SeqTrainSettings& preset) const {
  const bool rnn_run = architecture == Architecture::kRnnAttention;
  if (rnn_run && to_settings().section("model").to_text() != preset.to_settings().section("model").to_text()) {
    throw std::runtime_error(
        "--layout, --embedding-size, --heads, --encoders, --decoders, --dropout, --tie-embeddings ...: a "
        "transformer's settings; this run trains an RNN (--architecture rnn-attention: --rnn-*, --attention-*)");
  }
  if (rnn_run) {  // the vocabulary sizes come with the data: any will do to check the rest
    auto config = rnn;
    config.source_vocab = config.target_vocab = 5;
    try {
      config.validate();
    } catch (const std::invalid_argument& error) {
      throw std::runtime_error(std::string("--architecture rnn-attention: ") + error.what());
    }
    return;
  }
  if (architecture != preset.architecture) return;  // a transformer asked over an RNN preset
  // rnn.* is written for an RNN run only: compare both as one.
  const auto rnn_text = [](Seq2SeqTrainSettings s) {
    s.architecture = Architecture::kRnnAttention;
    return s.to_settings().section("rnn").to_text() + std::to_string(s.teacher_forcing);
  };
  if (rnn_text(*this) != rnn_text(preset)) {
    throw std::runtime_error(
        "--rnn-*, --attention-*, --teacher-forcing: an RNN's settings; add --architecture rnn-attention (or "
        "--preset rnn-bahdanau, rnn-luong)");
  }
}

Seq2SeqTrainSettings Seq2SeqTrainSettings::from_settings(const util::KeyValues& all) {
  Seq2SeqTrainSettings o;
  const auto model_keys = all.section("model");
  const auto s = all.section("training");
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

void Seq2SeqTrainSettings::check_subwords(bool resuming) const {
  const data::SubwordOptions defaults;
  const auto& subwords = data.subwords;
  if (!data.subword_units) {
    if (subwords.joint) throw std::runtime_error("--joint-vocab: needs --tokenizer sentencepiece");
    if (subwords.kind != defaults.kind) throw std::runtime_error("--spm-model: needs --tokenizer sentencepiece");
    if (subwords.vocab_size != defaults.vocab_size)
      throw std::runtime_error("--vocab-size: needs --tokenizer sentencepiece");
  }
  if (data.subword_units && data.vocabulary_limits().any()) {
    throw std::runtime_error(std::string(data.min_count > 1 ? "--min-count" : "--max-vocab") +
                             ": word level only; with --tokenizer sentencepiece, --vocab-size sizes the vocabularies");
  }
  if (!model.tie_embeddings() || resuming) return;
  if (!data.subword_units || !subwords.joint) {
    throw std::runtime_error(
        "--tie-embeddings: needs one vocabulary for both languages (--tokenizer sentencepiece --joint-vocab)");
  }
  if (model.transformer().layout() != Layout::kVaswani)
    throw std::runtime_error("--tie-embeddings: needs the vaswani layout (--preset cpu or --layout vaswani)");
}

void Seq2SeqTrainSettings::languages_from_file_names(bool src_lang_asked, bool tgt_lang_asked) {
  std::string named, assumed;
  // `from_name`: the language `file`'s name gives ("" for none).
  const auto side = [&](bool asked, const char* flag, const std::string& file, const std::string& from_name,
                        std::string& code) {
    if (asked) {  // the flag wins; a file name that says another language is probably a slip
      if (!from_name.empty() && data::base_language(from_name) != data::base_language(code)) {
        spdlog::warn("{} {} but {} is named as {} ({}): is the flag meant?", flag, code, file,
                     data::language_name(from_name), from_name);
      }
      return;
    }
    if (!from_name.empty()) code = from_name;
    auto& said = from_name.empty() ? assumed : named;
    said += (said.empty() ? "" : ", ") + std::string(flag) + " " + code;
  };
  if (data.train_src.empty() || data.train_tgt.empty()) {  // one corpus file (check_corpus refuses half a pair)
    languages_from_corpus_name(src_lang_asked, tgt_lang_asked);
    return;
  }
  side(src_lang_asked, "--src-lang", data.train_src, data::language_of_file(data.train_src), data.src_lang);
  side(tgt_lang_asked, "--tgt-lang", data.train_tgt, data::language_of_file(data.train_tgt), data.tgt_lang);
  if (!named.empty()) spdlog::info("languages from the file names: {}", named);
  if (!assumed.empty()) {
    spdlog::warn(
        "the file names name no language (a code such as .de or .en, data/languages.h): assumed {}; give "
        "the flag to say otherwise",
        assumed);
  }
}

void Seq2SeqTrainSettings::languages_from_corpus_name(bool src_lang_asked, bool tgt_lang_asked) {
  // The validation files' names (valid.de, valid.en) are the parallel files' rule; else the
  // corpus's, whose pair is its first two columns'.
  data::LanguagePair pair{data::language_of_file(data.valid_src), data::language_of_file(data.valid_tgt)};
  if (pair.src.empty() || pair.tgt.empty()) {
    pair = data::languages_of_corpus_file(data.data_path);
    if (data.src_column == 2 && data.tgt_column == 1) std::swap(pair.src, pair.tgt);
    if (std::max(data.src_column, data.tgt_column) > 2) pair = {};
  }
  if (pair.src.empty() || pair.tgt.empty()) return;  // the default pair, which the start-up line shows
  std::string named;
  for (auto [asked, flag, from_name, code] : {std::tuple{src_lang_asked, "--src-lang", pair.src, &data.src_lang},
                                              std::tuple{tgt_lang_asked, "--tgt-lang", pair.tgt, &data.tgt_lang}}) {
    if (asked || from_name == *code) continue;  // a flag wins; a name that agrees says nothing new
    *code = from_name;
    named += (named.empty() ? "" : ", ") + std::string(flag) + " " + from_name;
  }
  if (!named.empty()) spdlog::info("languages from the file names: {}", named);
}

void Seq2SeqTrainSettings::check_corpus() const {
  const auto both = [](const std::string& src, const std::string& tgt, const char* name) {
    if (src.empty() != tgt.empty()) {
      throw std::runtime_error(std::string("--") + name + (src.empty() ? "-tgt needs --" : "-src needs --") + name +
                               (src.empty() ? "-src" : "-tgt"));
    }
  };
  both(data.train_src, data.train_tgt, "train");
  both(data.valid_src, data.valid_tgt, "valid");
  both(data.test_src, data.test_tgt, "test");
  if (data.src_column == data.tgt_column) {
    throw std::runtime_error("--src-column and --tgt-column: both are column " + std::to_string(data.src_column));
  }
  data::check_language_code(data.src_lang, "--src-lang");
  data::check_language_code(data.tgt_lang, "--tgt-lang");
  if (data.src_lang == data.tgt_lang) throw std::runtime_error("--src-lang and --tgt-lang: both are " + data.src_lang);
  for (const auto* code : {&data.src_lang, &data.tgt_lang}) {
    if (data::written_without_spaces(*code) && !data.subword_units) {
      throw std::runtime_error(data::language_name(*code) + " (" + *code +
                               ") is written without spaces between words, so word-level tokens would be whole "
                               "clauses: add --tokenizer sentencepiece");
    }
  }
}

}  // namespace dls::settings

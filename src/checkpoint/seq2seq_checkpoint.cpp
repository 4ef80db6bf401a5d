#include "dls/checkpoint/seq2seq_checkpoint.h"

#include <cmath>
#include <cstdio>

#include <torch/torch.h>

#include "dls/data/languages.h"
#include "dls/layers/int8_linear.h"
#include "word_lines.h"

namespace dls::checkpoint {

const char* const kSeq2SeqKind = "seq2seq";

std::string progress_summary(const Seq2SeqCheckpointInfo& info) {
  const auto& s = info.state;
  std::string text = s.step_in_epoch == 0 ? "epoch " + std::to_string(s.completed_epochs)
                                          : "epoch " + std::to_string(s.completed_epochs + 1) + " unfinished, step " +
                                                std::to_string(s.global_step);
  char number[32];
  if (std::isfinite(info.val_bleu)) {
    std::snprintf(number, sizeof(number), "%.3f", info.val_bleu);
    text += std::string(", validation BLEU ") + number;
  }
  if (std::isfinite(info.val_loss)) {
    std::snprintf(number, sizeof(number), "%.3g", info.val_loss);
    text += std::string(std::isfinite(info.val_bleu) ? ", loss " : ", validation loss ") + number;
  }
  return text;
}

void describe_seq2seq_checkpoint(CheckpointWriter& writer, const Seq2SeqCheckpointInfo& info) {
  util::KeyValues settings = info.settings.to_settings();  // "model.*", "training.*"
  settings.set("split.seed", std::to_string(info.split.seed));
  settings.set("split.validation_pairs", std::to_string(info.split.validation_pairs));
  settings.set("split.corpus_pairs", std::to_string(info.split.corpus_pairs));
  settings.set("split.corpus_fingerprint", std::to_string(info.split.corpus_fingerprint));
  settings.set("evaluation.val_loss", info.val_loss);
  settings.set("evaluation.val_bleu", info.val_bleu);
  writer.add_settings(settings);
  writer.add_text("vocab_en", lines_of(info.english_words));
  writer.add_text("vocab_es", lines_of(info.spanish_words));
  // Text entries hold any bytes (and travel into averaged checkpoints with the vocabularies).
  if (!info.english_subwords.empty()) writer.add_text("subwords_en", info.english_subwords);
  if (!info.spanish_subwords.empty()) writer.add_text("subwords_es", info.spanish_subwords);
}

Seq2SeqCheckpointInfo read_seq2seq_info(const CheckpointReader& reader) {
  try {
    const auto& s = reader.settings();
    Seq2SeqCheckpointInfo info;
    info.settings = settings::Seq2SeqTrainSettings::from_settings(s);
    info.split.seed = std::stoull(s.get("split.seed"));
    info.split.validation_pairs = std::stoull(s.get("split.validation_pairs"));
    info.split.corpus_pairs = std::stoull(s.get("split.corpus_pairs"));
    info.split.corpus_fingerprint = std::stoull(s.get("split.corpus_fingerprint"));
    info.state = RunState::from_settings(s);
    info.val_loss = latest_evaluation(s, "val_loss", "progress.val_loss", NAN);
    info.val_bleu = latest_evaluation(s, "val_bleu", "progress.val_bleu", NAN);
    info.english_words = words_of_lines(reader.text("vocab_en"));
    info.spanish_words = words_of_lines(reader.text("vocab_es"));
    if (info.settings.data.subword_units) {
      info.english_subwords = reader.text("subwords_en");
      info.spanish_subwords = reader.text("subwords_es");
    }
    if (static_cast<std::int64_t>(info.english_words.size()) != info.settings.model.src_vocab_size() ||
        static_cast<std::int64_t>(info.spanish_words.size()) != info.settings.model.tgt_vocab_size()) {
      throw std::runtime_error("vocabulary sizes do not match the model's");
    }
    return info;
  } catch (...) {
    rethrow_naming_file(reader);
  }
}

LoadedSeq2Seq load_seq2seq_checkpoint(const std::string& path, Weights weights) {
  return load_seq2seq_checkpoint(CheckpointReader(path, kSeq2SeqKind), weights);
}

LoadedSeq2Seq load_seq2seq_checkpoint(const CheckpointReader& reader, Weights weights) {
  const std::string& path = reader.path();
  reader.check_kind(kSeq2SeqKind);
  auto info = read_seq2seq_info(reader);
  if (int8_linear_enabled() && info.settings.architecture == Architecture::kRnnAttention) {
    throw CheckpointError(path + ": int8 linear layers (--quantize int8) are for transformers; an RNN's recurrent " +
                          "layers have no int8 form here");
  }
  try {
    LoadedSeq2Seq loaded{
        info,
        info.settings.build_model(),
        data::Vocabulary::from_words(info.english_words),
        data::Vocabulary::from_words(info.spanish_words),
        data::stored_subword_model(info.english_subwords, info.english_words,
                                   data::language_name(info.settings.data.source_language()) + " SentencePiece"),
        data::stored_subword_model(info.spanish_subwords, info.spanish_words,
                                   data::language_name(info.settings.data.target_language()) + " SentencePiece")};
    reader.load_module(weights_module(reader, weights), loaded.model.module());
    loaded.model.module().eval();
    return loaded;
  } catch (const CheckpointError&) {
    throw;
  } catch (const std::exception& e) {
    throw CheckpointError(path + ": " + e.what());
  }
}

data::Seq2SeqStoredData seq2seq_stored_data(const Seq2SeqCheckpointInfo& info) {
  data::Seq2SeqStoredData stored{info.split, data::Vocabulary::from_words(info.english_words),
                                 data::Vocabulary::from_words(info.spanish_words), std::nullopt, std::nullopt};
  // As a resumed run always read them: the models of a subword-unit run, nothing otherwise.
  if (info.settings.data.subword_units) {
    stored.english_subwords = data::SubwordModel::from_proto(info.english_subwords);
    stored.spanish_subwords = data::SubwordModel::from_proto(info.spanish_subwords);
  }
  return stored;
}

data::InheritedVocabularies inherited_vocabularies(const Seq2SeqCheckpointInfo& parent, const std::string& parent_path,
                                                   const data::Seq2SeqDataSettings& ours, bool extend,
                                                   std::vector<std::string>& warnings) {
  data::InheritedVocabularies inherited;
  inherited.source = parent_path;
  inherited.extend = extend;
  const auto& theirs = parent.settings.data;
  const auto direction = [](const data::Seq2SeqDataSettings& d) {
    return data::language_name(d.source_language()) + " -> " + data::language_name(d.target_language());
  };
  const bool same_source = theirs.source_language() == ours.source_language();
  const bool same_target = theirs.target_language() == ours.target_language();
  const auto not_taken = [&](const std::string& why) {
    warnings.push_back("--init-vocab: " + why + ", so this run's vocabularies are its data's own (" + parent_path +
                       ")");
  };
  if (theirs.subword_units != ours.subword_units) {
    not_taken(std::string("the parent reads ") + (theirs.subword_units ? "SentencePiece pieces" : "words") +
              " and this run " + (ours.subword_units ? "pieces" : "words") + " (--tokenizer)");
    return inherited;
  }
  if (!same_source && !same_target) {
    not_taken("the parent translates " + direction(theirs) + ", this run " + direction(ours));
    return inherited;
  }
  if (ours.subword_units) {
    if (!same_source || !same_target) {
      not_taken("the parent's SentencePiece models are of " + direction(theirs) + ", this run's languages " +
                direction(ours));
      return inherited;
    }
    const auto& a = theirs.subwords;
    const auto& b = ours.subwords;
    if (a.kind != b.kind || a.vocab_size != b.vocab_size || a.joint != b.joint) {
      not_taken("the parent's SentencePiece models are other than --spm-model, --vocab-size and --joint-vocab ask");
      return inherited;
    }
    const auto stored = seq2seq_stored_data(parent);
    inherited.english_subwords = stored.english_subwords;
    inherited.spanish_subwords = stored.spanish_subwords;
    inherited.english = stored.english;
    inherited.spanish = stored.spanish;
    return inherited;
  }
  if (same_source) inherited.english = data::Vocabulary::from_words(parent.english_words);
  if (same_target) inherited.spanish = data::Vocabulary::from_words(parent.spanish_words);
  return inherited;
}

data::Seq2SeqDataset seq2seq_dataset(const data::Seq2SeqDataSettings& settings, data::Vocabulary::Padding padding,
                                     const Seq2SeqCheckpointInfo* info) {
  if (info == nullptr) return data::prepare_seq2seq_dataset(settings, padding, nullptr);
  const auto stored = seq2seq_stored_data(*info);
  return data::prepare_seq2seq_dataset(settings, padding, &stored);
}

}  // namespace dls::checkpoint

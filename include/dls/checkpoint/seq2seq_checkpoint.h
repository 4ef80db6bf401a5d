// Seq2seq checkpoints: everything needed to resume training or to evaluate without
// repeating a single hyperparameter -- model config, training options, both vocabularies,
// the validation split's definition, progress counters, weights, optimizer and RNG state.
#pragma once

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <torch/nn/module.h>
#include <torch/optim/optimizer.h>

#include "dls/checkpoint/checkpoint.h"
#include "dls/checkpoint/run_state.h"
#include "dls/settings/seq2seq_settings.h"
#include "dls/data/seq2seq_dataset.h"
#include "dls/data/split.h"
#include "dls/data/subword_model.h"
#include "dls/data/vocabulary.h"
#include "dls/models/translation_model.h"

namespace dls::checkpoint {

struct Seq2SeqCheckpointInfo {
  settings::Seq2SeqTrainSettings settings;  // the model config (vocabulary sizes set) and the run's settings
  data::SplitDefinition split;
  std::vector<std::string> english_words;  // vocabularies, index order (words or pieces)
  std::vector<std::string> spanish_words;
  // Subword units: each side's serialized SentencePiece model, whose pieces are its
  // vocabulary (the same model twice when joint); empty at word level.
  std::string english_subwords;
  std::string spanish_subwords;
  double val_loss = NAN;  // the latest validation's, at the time of the checkpoint
  double val_bleu = NAN;
  // Where the run stood (its epoch's mean loss is over steps): read from the file, which the
  // training loop wrote it into (describe_seq2seq_checkpoint leaves it to the loop).
  RunState state;
};

// How far a run had trained, for the line that names a checkpoint: "epoch 3, validation BLEU
// 0.210, loss 2.31" ("epoch 4 unfinished, step 1250" for a checkpoint written within an
// epoch; scores not measured are left out).
std::string progress_summary(const Seq2SeqCheckpointInfo& info);

extern const char* const kSeq2SeqKind;  // "seq2seq"

// Writes everything but the run's state, the weights, optimizer and RNG state into a writer of
// kind kSeq2SeqKind: the settings, the latest validation, both vocabularies and their
// SentencePiece models.
void describe_seq2seq_checkpoint(CheckpointWriter& writer, const Seq2SeqCheckpointInfo& info);

// Reads everything but the weights and optimizer state (load those through the reader).
// Throws CheckpointError naming the file.
Seq2SeqCheckpointInfo read_seq2seq_info(const CheckpointReader& reader);

// A model rebuilt from a checkpoint, with its vocabularies, ready to evaluate.
struct LoadedSeq2Seq {
  Seq2SeqCheckpointInfo info;
  TranslationModel model{Seq2SeqTransformer{nullptr}};  // the transformer or the RNN the run trained
  data::Vocabulary english;
  data::Vocabulary spanish;
  std::optional<data::SubwordModel> english_subwords;  // empty at word level
  std::optional<data::SubwordModel> spanish_subwords;
};
LoadedSeq2Seq load_seq2seq_checkpoint(const std::string& path, Weights weights = Weights::kEvaluation);
// The same from a checkpoint already open (a seq2seq one: checked).
LoadedSeq2Seq load_seq2seq_checkpoint(const CheckpointReader& reader, Weights weights = Weights::kEvaluation);

// What the checkpoint keeps of its run's data: the split, both vocabularies and (subword
// units) both SentencePiece models. A resumed run and an evaluation build their
// data::Seq2SeqDataset from it.
data::Seq2SeqStoredData seq2seq_stored_data(const Seq2SeqCheckpointInfo& info);

// The vocabularies a new run reading `ours` takes from its --init-from run `parent` (read from
// `parent_path`): --init-vocab extend (`extend`) or parent. At word level, each side whose
// language is the parent's on that side; with subword units, the parent's SentencePiece
// models when both languages and the subword settings are the parent's. What is not taken
// (another tokenizer, language or subword setting) is this data's own, and `warnings` gets a
// line saying why.
data::InheritedVocabularies inherited_vocabularies(const Seq2SeqCheckpointInfo& parent, const std::string& parent_path,
                                                   const data::Seq2SeqDataSettings& ours, bool extend,
                                                   std::vector<std::string>& warnings);

// A run's data, through the one type training and evaluation share: built afresh
// (info == nullptr: a new run), or with the split, vocabularies and SentencePiece models of
// the checkpoint's run (a resumed run, an evaluation). `settings`: the run's data settings
// (an evaluation may name another path to the same corpus); `padding`: the run's
// (Seq2SeqTrainSettings::padding()).
data::Seq2SeqDataset seq2seq_dataset(const data::Seq2SeqDataSettings& settings, data::Vocabulary::Padding padding,
                                     const Seq2SeqCheckpointInfo* info);

}  // namespace dls::checkpoint

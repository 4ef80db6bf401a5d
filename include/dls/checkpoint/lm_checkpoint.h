// Language-model checkpoints (kind "lm"): self-describing and resumable. One file holds the
// training settings, the split of the sentences (to redo it on resume, checked by the
// corpus's fingerprint), the vocabulary (and the SentencePiece model whose pieces it is), the progress and latest
// validation, the weights, the optimizer state and the CPU RNG state (the last three added by the training loop).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "dls/checkpoint/checkpoint.h"
#include "dls/checkpoint/run_state.h"
#include "dls/settings/lm_settings.h"
#include "dls/data/lm_dataset.h"
#include "dls/data/split.h"
#include "dls/models/language_model.h"

namespace dls::checkpoint {

inline constexpr const char* kLmCheckpointKind = "lm";

struct LmCheckpointContents {
  settings::LmTrainSettings settings;
  data::SplitDefinition split;
  std::vector<std::string> words;  // the vocabulary (data::Vocabulary::words())
  std::string subwords;            // the serialized SentencePiece model (empty: word level)
  double val_nll = -1;             // the latest validation's mean NLL per token (-1: none)
  // Where the run stood (its epoch's mean loss is over steps): read from the file, which the
  // training loop wrote it into (describe_lm_checkpoint leaves it to the loop).
  RunState state;
};

// Writes everything but the run's state, the weights, optimizer and RNG state into a writer
// of kind "lm".
void describe_lm_checkpoint(CheckpointWriter& writer, const LmCheckpointContents& contents);

// Reads the description (CheckpointError naming the file for anything wrong).
LmCheckpointContents read_lm_contents(const CheckpointReader& reader);

// The contents of the newest checkpoint in `dir_or_file` (a resumed run starts from them).
LmCheckpointContents read_lm_checkpoint(const std::string& dir_or_file);

// The checkpoint's tokenizer: its SentencePiece model, checked against its vocabulary.
data::LmTokenizer lm_tokenizer(const LmCheckpointContents& contents);

// What the checkpoint keeps of its run's data (split, tokenizer, vocabulary, the model's L):
// a resumed run and an evaluation build their data::LmDataset from it.
data::LmStoredData lm_stored_data(const LmCheckpointContents& contents);

// The vocabulary a new language model reading `ours` takes from its --init-from run `parent`
// (--init-vocab extend, or parent: `extend` false): an lm_train run's, or a seq2seq_train run's
// target side; with subword units its SentencePiece model. Nothing when the parent is of
// another kind, or reads other tokens (words, characters, pieces of other settings) or another
// language: then `warnings` gets a line saying why, and the vocabulary is the data's own.
std::optional<data::InheritedLmVocabulary> inherited_lm_vocabulary(const CheckpointReader& parent,
                                                                   const data::LmDataSettings& ours, bool extend,
                                                                   std::vector<std::string>& warnings);

// A run's data, through the one type training and evaluation share: built afresh
// (contents == nullptr: a new run), or with the split, tokenizer, vocabulary and L of the
// checkpoint's run (a resumed run, an evaluation). `settings`: the run's data settings
// (an evaluation may name another path to the same corpus).
data::LmDataset lm_dataset(const data::LmDataSettings& settings, const LmCheckpointContents* contents,
                           const data::InheritedLmVocabulary* inherited = nullptr);

// Rebuilds the model from the checkpoint alone and loads its evaluation weights (CPU, eval mode).
LanguageModel load_lm_model(const CheckpointReader& reader, const settings::LmTrainSettings& settings,
                            Weights weights = Weights::kEvaluation);

}  // namespace dls::checkpoint

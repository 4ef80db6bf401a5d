// The data of a seq2seq run, one type for training and checkpoint evaluation alike (so that
// evaluation scores exactly the pairs training held out): the corpus read and normalised,
// the validation split, vocabularies (and SentencePiece models) from the training split,
// and both splits as tensors.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "dls/data/corpus.h"
#include "dls/data/pair_tensors.h"
#include "dls/data/split.h"
#include "dls/data/subword_model.h"
#include "dls/data/vocabulary.h"

namespace dls::data {

// Which pairs, and how they are held out and tokenized (checkpoint keys "training.*" beside
// the training settings, settings/seq2seq_settings.h).
struct Seq2SeqDataSettings {
  std::string data_path;                 // TSV (Tatoeba/Anki) or DLStudio archive
  int max_words = 8;                     // longest sentence per side; L = max_words + 2
  std::uint64_t split_seed = 1234;       // validation split, by English sentence
  std::int64_t validation_pairs = 2000;  // held-out pairs (at least)
  bool subword_units = false;            // SentencePiece pieces (`subwords`) instead of words
  SubwordOptions subwords;               // trained on the training split, kept in the checkpoint
};

// What a run's checkpoint keeps of its data (checkpoint/seq2seq_checkpoint.h:
// seq2seq_stored_data): a resumed run and an evaluation use it instead of building it again.
struct Seq2SeqStoredData {
  SplitDefinition split;  // redone on the corpus, checked by its fingerprint
  Vocabulary english;
  Vocabulary spanish;
  std::optional<SubwordModel> english_subwords;  // subword units only
  std::optional<SubwordModel> spanish_subwords;
};

struct Seq2SeqDataset {
  Corpus corpus;
  CorpusSplit split;
  Vocabulary english;
  Vocabulary spanish;
  // Subword units: the models whose pieces the vocabularies index (empty at word level).
  std::optional<SubwordModel> english_subwords;
  std::optional<SubwordModel> spanish_subwords;
  // L of the tensors: max_words + 2 at word level; with subword units, the longest side of
  // any kept pair (both splits) in pieces + 2, so that no pair is cut or dropped.
  int max_len = 0;
  EncodedPairs train;
  EncodedPairs validation;
};

// Reads settings.data_path. A fresh run (stored == nullptr) splits the corpus and builds the
// vocabularies (with subword units: trains the SentencePiece models on the training split);
// a resumed run or an evaluation redoes the stored split (the corpus must be the same,
// checked by its fingerprint) and uses the stored vocabularies and models. `padding`: how
// the run pads its tensors (Seq2SeqTrainSettings::padding()).
Seq2SeqDataset prepare_seq2seq_dataset(const Seq2SeqDataSettings& settings, Vocabulary::Padding padding,
                                       const Seq2SeqStoredData* stored);

// The start-up lines DLStudio users look for: corpus counts, vocabulary sizes, pairs per
// split, the <unk> rates of the validation split, the longest sentences.
std::vector<std::string> describe_seq2seq_dataset(const Seq2SeqDataset& data, int max_words);

// The normalised words of pairs[indices] on one side.
std::vector<std::vector<std::string>> english_sentences(const Seq2SeqDataset& data,
                                                        const std::vector<std::size_t>& indices);
std::vector<std::vector<std::string>> spanish_sentences(const Seq2SeqDataset& data,
                                                        const std::vector<std::size_t>& indices);

}  // namespace dls::data

// The data of a seq2seq run (private to src/train): the corpus read and normalised, the
// validation split, vocabularies (and SentencePiece models) from the training split, and
// both splits as tensors.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "dls/data/corpus.h"
#include "dls/data/pair_tensors.h"
#include "dls/data/split.h"
#include "dls/data/subword_model.h"
#include "dls/data/vocabulary.h"
#include "dls/checkpoint/seq2seq_checkpoint.h"

namespace dls::train {

struct Seq2SeqData {
  data::Corpus corpus;
  data::CorpusSplit split;
  data::Vocabulary english;
  data::Vocabulary spanish;
  // Subword units: the models whose pieces the vocabularies index (empty at word level).
  std::optional<data::SubwordModel> english_subwords;
  std::optional<data::SubwordModel> spanish_subwords;
  // L of the tensors: max_words + 2 at word level; with subword units, the longest side of
  // any kept pair (both splits) in pieces + 2, so that no pair is cut or dropped.
  int max_len = 0;
  data::EncodedPairs train;
  data::EncodedPairs validation;
};

// Reads options.data_path. Fresh runs split the corpus and build the vocabularies (with
// subword units: train the SentencePiece models on the training split); a resumed run
// (resume != nullptr) redoes the checkpoint's split (the corpus must be the same, checked
// by its fingerprint) and uses the checkpoint's vocabularies and models.
Seq2SeqData prepare_seq2seq_data(const settings::Seq2SeqTrainSettings& options,
                                 const checkpoint::Seq2SeqCheckpointInfo* resume);

// The start-up lines DLStudio users look for: corpus counts, vocabulary sizes, pairs per
// split, the <unk> rates of the validation split, the longest sentences.
std::vector<std::string> describe_seq2seq_data(const Seq2SeqData& data, int max_words);

// The normalised words of pairs[indices] on one side.
std::vector<std::vector<std::string>> english_sentences(const Seq2SeqData& data,
                                                        const std::vector<std::size_t>& indices);
std::vector<std::vector<std::string>> spanish_sentences(const Seq2SeqData& data,
                                                        const std::vector<std::size_t>& indices);

}  // namespace dls::train

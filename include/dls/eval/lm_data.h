// The data of a language-model run (training and checkpoint evaluation): the sentences read and
// normalised, the held-out split, the vocabulary of the training split, and both splits
// encoded as [N, L] token rows (SOS w1 .. wn EOS <pad>...).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <torch/types.h>

#include "dls/checkpoint/lm_checkpoint.h"
#include "dls/data/sentence_corpus.h"
#include "dls/data/split.h"
#include "dls/data/vocabulary.h"

namespace dls::eval {

struct LmData {
  data::SentenceCorpus corpus;
  data::CorpusSplit split;
  data::Vocabulary vocabulary;
  torch::Tensor train;       // [N, L] int64
  torch::Tensor validation;  // [n, L] int64 (n = 0: no validation)
  std::int64_t unknown_validation_words = 0;  // validation words mapped to <unk>
};

// Reads settings.path. A fresh run splits the sentences (repeated sentences stay on one
// side) and builds the vocabulary; a resumed run redoes the checkpoint's split (the corpus
// must be the same, checked by its fingerprint) and uses its vocabulary.
LmData prepare_lm_data(const checkpoint::LmDataSettings& settings, const checkpoint::LmCheckpointContents* resumed);

// Rows SOS w1 .. wn EOS <pad>... of sentences[indices], [N, max_len] int64; words outside
// the vocabulary become <unk> and are counted in *unknown_words (when given).
torch::Tensor encode_sentences(const std::vector<std::vector<std::string>>& sentences,
                               const std::vector<std::size_t>& indices, const data::Vocabulary& vocabulary,
                               int max_len, std::int64_t* unknown_words = nullptr);

// The start-up lines: corpus counts, sentences per split, vocabulary size.
std::vector<std::string> describe_lm_data(const LmData& data, const checkpoint::LmDataSettings& settings);

}  // namespace dls::eval

// How checkpoint_eval's report translates the pairs a seq2seq checkpoint is scored on
// (private to src/report): every pair, however long, as sacreBLEU scores every line -- those
// the model reads at once decoded in batches (eval::translate_and_score), a longer source as
// `translate` translates it (eval::Translator: whole, or in parts by the dlstudio layout).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "dls/checkpoint/seq2seq_checkpoint.h"
#include "dls/data/corpus.h"
#include "dls/eval/decoding.h"
#include "dls/eval/seq2seq_evaluation.h"

namespace dls::report::detail {

// The pairs as the model's tokens (pieces with subword units), by what the model reads at once.
struct ModelPairs {
  std::vector<data::SentencePair> tokens;      // every pair, in order
  std::vector<std::size_t> batched;            // a source within L - 2 tokens: decoded in batches
  std::vector<std::size_t> longer;             // a longer source: translated as `translate` does
  std::vector<data::SentencePair> loss_pairs;  // both sides within L - 2 tokens: the loss's
};

ModelPairs model_pairs(const checkpoint::LoadedSeq2Seq& loaded, const std::vector<data::SentencePair>& pairs);

// Every pair's translation, in order, scored against its reference (the pair's target
// words); sentences_per_s over all of them. `checkpoint_file` names `loaded`; `device` is the
// one it is on.
eval::TranslationResult translate_every_pair(const checkpoint::LoadedSeq2Seq& loaded,
                                             const std::string& checkpoint_file,
                                             const std::vector<data::SentencePair>& pairs, const ModelPairs& tokens,
                                             const eval::DecodeOptions& decode, const std::string& device);

}  // namespace dls::report::detail

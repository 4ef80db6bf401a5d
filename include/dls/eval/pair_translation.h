// Translating the pairs of a test set to score them: every pair, however long, as sacreBLEU
// scores every line -- those the model reads at once decoded in batches (translate_and_score),
// a longer source as `checkpoint_eval translate` translates it (Translator: whole, or in parts
// by the dlstudio layout). checkpoint_eval's report and seq2seq_train's end-of-run test score
// both score this way, so that their numbers agree.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "dls/checkpoint/seq2seq_checkpoint.h"
#include "dls/data/corpus.h"
#include "dls/eval/decoding.h"
#include "dls/eval/seq2seq_evaluation.h"

namespace dls::eval {

// The pairs as the model's tokens (pieces with subword units), by what the model reads at once.
struct ModelPairs {
  std::vector<data::SentencePair> tokens;      // every pair, in order
  std::vector<std::size_t> batched;            // a source within L - 2 tokens: decoded in batches
  std::vector<std::size_t> longer;             // a longer source: translated as `translate` does
  std::vector<data::SentencePair> loss_pairs;  // both sides within L - 2 tokens: the loss's
};

ModelPairs model_pairs(const checkpoint::LoadedSeq2Seq& loaded, const std::vector<data::SentencePair>& pairs);

// Every pair's translation, in order, scored against its reference (the pair's target
// words); sentences_per_s over all of them. `checkpoint_file` names `loaded` in messages;
// `device` (cpu, cuda) is the one it is on; "": wherever that is (a trainer's model, which may
// be on another GPU than cuda:0).
TranslationResult translate_every_pair(const checkpoint::LoadedSeq2Seq& loaded, const std::string& checkpoint_file,
                                       const std::vector<data::SentencePair>& pairs, const ModelPairs& tokens,
                                       const DecodeOptions& decode, const std::string& device);

}  // namespace dls::eval

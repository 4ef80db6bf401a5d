// Measuring a seq2seq model on sentence pairs: the corpus BLEU (NLTK's, and sacreBLEU's with
// chrF) of its translations, and DLStudio-style sample printouts. Shared by training
// (per-epoch validation) and checkpoint evaluation. Its loss: models/seq2seq_loss.h.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <torch/types.h>

#include "dls/data/subword_model.h"
#include "dls/data/vocabulary.h"
#include "dls/eval/bleu.h"
#include "dls/eval/chrf.h"
#include "dls/eval/decoding.h"
#include "dls/eval/sacrebleu.h"
#include "dls/models/seq2seq.h"

namespace dls::eval {

struct TranslationResult {
  std::vector<std::vector<std::string>> hypotheses;  // decoded words, no SOS/EOS
  std::vector<bool> finished;  // per hypothesis: the decoder wrote EOS (false: it filled every position)
  BleuScore bleu;              // corpus BLEU, NLTK's defaults
  // On the words joined by spaces (lowercase and without punctuation, as the corpus was
  // normalised): sacreBLEU's corpus BLEU (13a, exp smoothing) and chrF2, signatures case:lc.
  // An unknown word is the text "<unk>" there, three 13a tokens that match nothing.
  SacreBleuScore sacrebleu;
  ChrfScore chrf;
  std::size_t unknown_replaced = 0;  // DecodeOptions::replace_unknown: the <unk> words replaced
  double seconds = 0;                // decoding time (with the replacement pass under replace_unknown)
  double sentences_per_s = 0;
};

// The source sentences of src's rows, for DecodeOptions::replace_unknown: each row's tokens
// (words or pieces, as encoded in the row) and its words.
struct SourceSentences {
  const std::vector<std::vector<std::string>>& tokens;
  const std::vector<std::vector<std::string>>& words;
};

// Translates every row of src [N, L] and scores the words against one reference per
// sentence (SOS/EOS/<pad> stripped from both sides). With subword units (`subwords` not
// nullptr) the decoded pieces are detokenised into words first, so that the scores compare
// with word-level runs'. options.replace_unknown: each <unk> written becomes the source word
// aligned to it (unknown_words.h, as Translator::translate does), which needs `sources`.
TranslationResult translate_and_score(const TranslationModel& model, const torch::Tensor& src,
                                      const data::Vocabulary& spanish,
                                      const std::vector<std::vector<std::string>>& references,
                                      const DecodeOptions& options = {}, const data::SubwordModel* subwords = nullptr,
                                      const SourceSentences* sources = nullptr);

// result.hypotheses (words) scored against one reference each (SOS/EOS/<pad> stripped from
// both sides): its bleu, sacrebleu and chrf, as translate_and_score scores them.
void score_translations(TranslationResult& result, const std::vector<std::vector<std::string>>& references);

// DLStudio's printout of one pair and its translation, marked [CORRECT] when the
// translation equals the reference word for word:
//   The input sentence pair:  ['SOS i am here EOS'] ['SOS estoy aquí EOS']
//   The translation produced by TransformerFG:  SOS estoy aquí EOS   [CORRECT]
// A translation that filled every position without writing EOS (`finished` false) is shown
// without it, as DLStudio shows the words it predicted.
std::string format_sample(const std::vector<std::string>& english, const std::vector<std::string>& reference,
                          const std::vector<std::string>& translation, const std::string& model_name,
                          bool finished = true);

// `count` distinct indices below n drawn from seed (all of 0..n-1 when count >= n).
std::vector<std::size_t> sample_indices(std::size_t n, std::size_t count, std::uint64_t seed);

}  // namespace dls::eval

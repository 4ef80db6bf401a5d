// Measuring a seq2seq model on sentence pairs: its loss, the corpus BLEU (NLTK's, and
// sacreBLEU's with chrF) of its translations, and DLStudio-style sample printouts. Shared by training (per-epoch
// validation) and checkpoint evaluation.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <torch/types.h>

#include "dls/data/pair_tensors.h"
#include "dls/data/subword_model.h"
#include "dls/data/vocabulary.h"
#include "dls/eval/bleu.h"
#include "dls/eval/chrf.h"
#include "dls/eval/decoding.h"
#include "dls/eval/sacrebleu.h"
#include "dls/models/seq2seq.h"

namespace dls::eval {

struct LossOptions {
  // DLStudio's loss: for each position the batch-mean NLL, summed over the L-1 positions,
  // with EOS padding counted as targets. Otherwise: the mean NLL over real target tokens
  // (padding ignored), optionally label-smoothed.
  bool dlstudio = false;
  double label_smoothing = 0.0;  // (1 - e) * NLL + e * mean over the vocabulary of -log p
  std::int64_t pad_index = data::Vocabulary::kPad;
};

// log_probs [B, L-1, V] (predictions of target positions 1..L-1), targets [B, L-1].
torch::Tensor sequence_loss(const torch::Tensor& log_probs, const torch::Tensor& targets, const LossOptions& options);

// What a batch's loss counts over: its rows (DLStudio's loss averages over them) and its
// real (non-padding) target tokens (the standard loss averages over those).
struct LossDenominators {
  double rows = 0;
  double real_tokens = 0;
};
LossDenominators loss_denominators(const torch::Tensor& targets, const LossOptions& options);

// The share of a batch's sequence_loss contributed by some of its rows (log_probs and
// targets of those rows; `batch` from the whole batch's targets): the shares of disjoint
// row chunks add up to sequence_loss of the whole batch. For data-parallel steps.
torch::Tensor sequence_loss_share(const torch::Tensor& log_probs, const torch::Tensor& targets,
                                  const LossOptions& options, const LossDenominators& batch);

// The same loss from the decoder's final states [B, L-1, M] (Seq2SeqTransformer::final_states)
// and its output layer: when padding is ignored, only the rows of real target tokens go
// through the output layer and the log-softmax. Equals
// sequence_loss(log_softmax(out(states)), targets, options) in value and gradients; a third
// of a typical batch's rows are padding, and the output layer over the ~21k Spanish words
// is the largest product of a vaswani training step.
torch::Tensor sequence_loss_from_states(torch::nn::Linear& out, const torch::Tensor& states,
                                        const torch::Tensor& targets, const LossOptions& options);

// sequence_loss_share of model(src, tgt) computed through sequence_loss_from_states: what a
// training step's chunk contributes.
torch::Tensor model_loss_share(Seq2SeqTransformer& model, const torch::Tensor& src, const torch::Tensor& tgt,
                               const LossOptions& options, const LossDenominators& batch);

// The loss over all pairs in eval mode without gradients (mean over batches, weighted by
// batch size). Restores the model's training mode.
double dataset_loss(Seq2SeqTransformer& model, const data::EncodedPairs& pairs, const LossOptions& options,
                    std::int64_t batch_size = 256);

struct TranslationResult {
  std::vector<std::vector<std::string>> hypotheses;  // decoded words, no SOS/EOS
  BleuScore bleu;                                    // corpus BLEU, NLTK's defaults
  // On the words joined by spaces (lowercase and without punctuation, as the corpus was
  // normalised): sacreBLEU's corpus BLEU (13a, exp smoothing) and chrF2, signatures case:lc.
  // An unknown word is the text "<unk>" there, three 13a tokens that match nothing.
  SacreBleuScore sacrebleu;
  ChrfScore chrf;
  double seconds = 0;  // decoding time
  double sentences_per_s = 0;
};

// Translates every row of src [N, L] and scores the words against one reference per
// sentence (SOS/EOS/<pad> stripped from both sides). With subword units (`subwords` not
// nullptr) the decoded pieces are detokenised into words first, so that the scores compare
// with word-level runs'.
TranslationResult translate_and_score(Seq2SeqTransformer& model, const torch::Tensor& src,
                                      const data::Vocabulary& spanish,
                                      const std::vector<std::vector<std::string>>& references,
                                      const DecodeOptions& options = {}, const data::SubwordModel* subwords = nullptr);

// DLStudio's printout of one pair and its translation, marked [CORRECT] when the
// translation equals the reference word for word:
//   The input sentence pair:  ['SOS i am here EOS'] ['SOS estoy aquí EOS']
//   The translation produced by TransformerFG:  SOS estoy aquí EOS   [CORRECT]
std::string format_sample(const std::vector<std::string>& english, const std::vector<std::string>& reference,
                          const std::vector<std::string>& translation, const std::string& model_name);

// "TransformerFG" / "TransformerPreLN"
std::string model_name(const Seq2SeqConfig& config);

// `count` distinct indices below n drawn from seed (all of 0..n-1 when count >= n).
std::vector<std::size_t> sample_indices(std::size_t n, std::size_t count, std::uint64_t seed);

}  // namespace dls::eval

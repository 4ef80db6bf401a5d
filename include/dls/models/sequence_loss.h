// The training loss of a transformer over token sequences (seq2seq targets, a language
// model's next tokens): DLStudio's summed loss or the mean over real tokens with label
// smoothing, computed from log-probabilities or, cheaper, from the decoder's final states;
// and the share of it a chunk of a batch contributes (data-parallel steps). Shared by the
// seq2seq and the language-model tasks, their training and their evaluation.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include <torch/types.h>

#include "dls/data/vocabulary.h"
#include "dls/models/decoder.h"

namespace dls {

struct LossOptions {
  // DLStudio's loss: for each position the batch-mean NLL, summed over the L-1 positions,
  // with EOS padding counted as targets (a <pad> target, which its EOS padding never
  // produces, counts nowhere: the masked rows of static-shape batches). Otherwise: the mean
  // NLL over real target tokens (padding ignored), optionally label-smoothed.
  bool dlstudio = false;
  double label_smoothing = 0.0;  // (1 - e) * NLL + e * mean over the vocabulary of -log p
  std::int64_t pad_index = data::Vocabulary::kPad;
  // Targets the model never predicts (their log-probability is -inf: <pad> and <unk> of a
  // model with DLStudio's outputs, MasterDecoderWithMasking::never_predicted) count nowhere,
  // as <pad>: <unk> in validation sentences. The *_from_states losses add their decoder's.
  std::vector<std::int64_t> never_predicted;
  // sequence_loss_sum_from_states: every row of the decoder's states through the output layer
  // and the masked ones multiplied by 0 (fixed shapes, no host synchronisation: static-shape
  // batches, CUDA graphs), instead of only the rows of counted targets (fewer FLOPs on the
  // CPU, but a nonzero() whose size the host waits for).
  bool all_output_rows = false;
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

// A chunk's loss (its own mean over its rows or real tokens) scaled to its share of the
// whole batch's mean: `chunk` from the chunk's targets, `batch` from the whole batch's.
torch::Tensor chunk_loss_share(const torch::Tensor& loss, const LossDenominators& chunk, const LossDenominators& batch,
                               const LossOptions& options);

// The share of a batch's sequence_loss contributed by some of its rows (log_probs and
// targets of those rows; `batch` from the whole batch's targets): the shares of disjoint
// row chunks add up to sequence_loss of the whole batch. For data-parallel steps.
torch::Tensor sequence_loss_share(const torch::Tensor& log_probs, const torch::Tensor& targets,
                                  const LossOptions& options, const LossDenominators& batch);

// The same loss from the decoder's final states [B, L-1, M] (Seq2SeqTransformer::final_states)
// and its output layer (decoder.scores): when padding is ignored, only the rows of real target
// tokens go through the output layer and the log-softmax. Equals
// sequence_loss(log_softmax(out(states)), targets, options) in value and gradients; a third
// of a typical batch's rows are padding, and the output layer over the ~21k Spanish words
// is the largest product of a vaswani training step.
torch::Tensor sequence_loss_from_states(MasterDecoderWithMaskingImpl& decoder, const torch::Tensor& states,
                                        const torch::Tensor& targets, const LossOptions& options);

// The sum over the targets the loss counts of their per-token losses, from the decoder's
// final states [b, L-1, M] and its output layer: the (label-smoothed) NLL of every target
// that is not options.pad_index nor one the decoder never predicts. The standard loss divides
// it by the batch's real tokens; DLStudio's by the batch's rows, and there no target of real
// data is <pad> (its padding is EOS, counted as a target): only the fully masked rows of a
// static-shape batch hold <pad>, so they count nowhere in either loss. Divided by a whole
// batch's denominators (loss_from_sum) it is the batch's loss, and over disjoint row chunks
// the shares add up.
torch::Tensor sequence_loss_sum_from_states(MasterDecoderWithMaskingImpl& decoder, const torch::Tensor& states,
                                            const torch::Tensor& targets, const LossOptions& options);

// The same sum from any model's output features [B, T, F] and its output layer (features
// [N, F] -> scores [N, V]): what an RNN decoder's teacher-forced pass gives
// (RnnSeq2Seq::output_features). sequence_loss_sum_from_states is this with the
// transformer decoder's output layer and its never-predicted columns.
using OutputLayer = std::function<torch::Tensor(const torch::Tensor& features)>;
torch::Tensor sequence_loss_sum_from_features(const OutputLayer& output, const torch::Tensor& features,
                                              const torch::Tensor& targets, const LossOptions& options);

// sum / batch.rows (DLStudio's loss) or sum / batch.real_tokens (the standard one; the sum
// itself, 0, when the batch has no real token).
torch::Tensor loss_from_sum(const torch::Tensor& sum, const LossDenominators& batch, const LossOptions& options);

}  // namespace dls

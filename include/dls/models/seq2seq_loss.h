// The loss of a translation model, transformer or RNN (models/sequence_loss.h), on pairs [B, L]: a training
// step's chunk share, and the loss over a whole split (validation, checkpoint evaluation).
#pragma once

#include <cstdint>

#include <torch/types.h>

#include "dls/data/pair_tensors.h"
#include "dls/models/translation_model.h"
#include "dls/models/sequence_loss.h"

namespace dls {

// The share of a batch's loss that model(src, tgt) on some of its rows contributes
// (sequence_loss_share of the same rows, computed as sequence_loss_sum_from_states over the
// batch's denominators `batch`): what a training step's chunk contributes. Rows whose
// targets (tgt[:, 1:]) are all <pad> contribute nothing: the fully masked rows of a
// static-shape batch.
// An RNN reads its own previous prediction instead of the gold word with probability
// 1 - teacher_forcing at each position (RnnSeq2Seq::forward); a transformer is always
// teacher-forced.
torch::Tensor model_loss_share(const TranslationModel& model, const torch::Tensor& src, const torch::Tensor& tgt,
                               const LossOptions& options, const LossDenominators& batch, double teacher_forcing = 1.0);

// The loss over all pairs in eval mode without gradients (mean over batches, weighted by
// batch size). Restores the model's training mode.
double dataset_loss(const TranslationModel& model, const data::EncodedPairs& pairs, const LossOptions& options,
                    std::int64_t batch_size = 256);

}  // namespace dls

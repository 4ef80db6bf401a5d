// The training loss of a LanguageModel (models/sequence_loss.h over its next tokens).
#pragma once

#include <torch/types.h>

#include "dls/models/language_model.h"
#include "dls/models/sequence_loss.h"

namespace dls {

// The loss of tokens [B, L]: the mean over the real (non-padding) targets 1..L-1 of the
// per-token loss of `options` (label smoothing), as sequence_loss_from_states computes it.
torch::Tensor language_model_loss(LanguageModel& model, const torch::Tensor& tokens, const LossOptions& options);

}  // namespace dls

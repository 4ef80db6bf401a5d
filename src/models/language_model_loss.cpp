#include "dls/models/language_model_loss.h"

#include <torch/torch.h>

namespace dls {

torch::Tensor language_model_loss(LanguageModel& model, const torch::Tensor& tokens, const LossOptions& options) {
  TORCH_CHECK(tokens.dim() == 2 && tokens.size(1) >= 2, "expected tokens [B, L] with L >= 2");
  const std::int64_t steps = tokens.size(1) - 1;
  const auto states = model->final_states(tokens.narrow(1, 0, steps));  // [B, L-1, M]: row t predicts t+1
  return sequence_loss_from_states(*model->master_decoder, states, tokens.narrow(1, 1, steps), options);
}

}  // namespace dls

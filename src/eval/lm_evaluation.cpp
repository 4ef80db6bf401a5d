#include "dls/eval/lm_evaluation.h"

#include <algorithm>

#include <torch/torch.h>

namespace dls::eval {

torch::Tensor language_model_loss(LanguageModel& model, const torch::Tensor& tokens, const LossOptions& options) {
  TORCH_CHECK(tokens.dim() == 2 && tokens.size(1) >= 2, "expected tokens [B, L] with L >= 2");
  const std::int64_t steps = tokens.size(1) - 1;
  const auto states = model->final_states(tokens.narrow(1, 0, steps));  // [B, L-1, M]: row t predicts t+1
  return sequence_loss_from_states(model->master_decoder->out, states, tokens.narrow(1, 1, steps), options);
}

TokenLikelihood token_likelihood(LanguageModel& model, const torch::Tensor& tokens, std::int64_t pad_index,
                                 std::int64_t batch_size) {
  torch::NoGradGuard no_grad;
  const bool was_training = model->is_training();
  model->eval();
  const auto device = model->parameters().front().device();
  LossOptions options;  // plain NLL
  options.pad_index = pad_index;
  TokenLikelihood total;
  const std::int64_t n = tokens.size(0);
  for (std::int64_t start = 0; start < n; start += batch_size) {
    const auto batch = tokens.narrow(0, start, std::min(batch_size, n - start)).to(device);
    const auto real = (batch.narrow(1, 1, batch.size(1) - 1) != pad_index).sum().item<std::int64_t>();
    total.nll_sum += language_model_loss(model, batch, options).item<double>() * static_cast<double>(real);
    total.tokens += real;
  }
  model->train(was_training);
  return total;
}

}  // namespace dls::eval

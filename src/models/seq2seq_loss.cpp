#include "dls/models/seq2seq_loss.h"

#include <algorithm>

#include <torch/torch.h>

namespace dls {

torch::Tensor model_loss_share(const TranslationModel& model, const torch::Tensor& src, const torch::Tensor& tgt,
                               const LossOptions& options, const LossDenominators& batch, double teacher_forcing) {
  const auto targets = tgt.narrow(1, 1, tgt.size(1) - 1);
  if (model.is_rnn()) {
    const auto logits = model.rnn()->forward(src, tgt.narrow(1, 0, tgt.size(1) - 1), teacher_forcing);
    return sequence_loss_share(logits.log_softmax(-1), targets, options, batch);
  }
  // The chunk's sum over the batch's denominators: no count of the chunk's own (a host
  // synchronisation on a GPU).
  auto transformer = model.transformer();
  return loss_from_sum(sequence_loss_sum_from_states(*transformer->master_decoder, transformer->final_states(src, tgt),
                                                     targets, options),
                       batch, options);
}

double dataset_loss(const TranslationModel& model, const data::EncodedPairs& pairs, const LossOptions& options,
                    std::int64_t batch_size) {
  torch::NoGradGuard no_grad;
  auto& module = model.module();
  const bool was_training = module.is_training();
  module.eval();
  const auto device = module.parameters().front().device();
  double total = 0;
  const std::int64_t n = pairs.size();
  for (std::int64_t start = 0; start < n; start += batch_size) {
    const std::int64_t rows = std::min(batch_size, n - start);
    const auto src = pairs.src.narrow(0, start, rows).to(device);
    const auto tgt = pairs.tgt.narrow(0, start, rows).to(device);
    const auto targets = tgt.narrow(1, 1, tgt.size(1) - 1);
    const auto loss = model.is_rnn()
                          ? sequence_loss(model.log_probabilities(src, tgt), targets, options)
                          : sequence_loss_from_states(*model.transformer()->master_decoder,
                                                      model.transformer()->final_states(src, tgt), targets, options);
    total += loss.item<double>() * static_cast<double>(rows);
  }
  module.train(was_training);
  return n > 0 ? total / static_cast<double>(n) : 0.0;
}

}  // namespace dls

#include "dls/models/seq2seq_loss.h"

#include <algorithm>

#include <torch/torch.h>

namespace dls {

torch::Tensor model_loss_share(Seq2SeqTransformer& model, const torch::Tensor& src, const torch::Tensor& tgt,
                               const LossOptions& options, const LossDenominators& batch) {
  // The chunk's sum over the batch's denominators: no count of the chunk's own (a host
  // synchronisation on a GPU).
  const auto targets = tgt.narrow(1, 1, tgt.size(1) - 1);
  return loss_from_sum(
      sequence_loss_sum_from_states(*model->master_decoder, model->final_states(src, tgt), targets, options), batch,
      options);
}

double dataset_loss(Seq2SeqTransformer& model, const data::EncodedPairs& pairs, const LossOptions& options,
                    std::int64_t batch_size) {
  torch::NoGradGuard no_grad;
  const bool was_training = model->is_training();
  model->eval();
  const auto device = model->parameters().front().device();
  double total = 0;
  const std::int64_t n = pairs.size();
  for (std::int64_t start = 0; start < n; start += batch_size) {
    const std::int64_t rows = std::min(batch_size, n - start);
    const auto src = pairs.src.narrow(0, start, rows).to(device);
    const auto tgt = pairs.tgt.narrow(0, start, rows).to(device);
    const auto loss = sequence_loss_from_states(*model->master_decoder, model->final_states(src, tgt),
                                                tgt.narrow(1, 1, tgt.size(1) - 1), options);
    total += loss.item<double>() * static_cast<double>(rows);
  }
  model->train(was_training);
  return n > 0 ? total / static_cast<double>(n) : 0.0;
}

}  // namespace dls

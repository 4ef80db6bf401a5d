#include "dls/models/seq2seq_loss.h"

#include <algorithm>

#include <torch/torch.h>

namespace dls {

namespace {

// The RNN's summed per-token loss over src, tgt [B, T] (sequence_loss_sum_from_features).
// Teacher-forced, the output layer reads the rows of counted targets only; a position that
// may read the model's own prediction needs every row's logits for its argmax.
torch::Tensor rnn_loss_sum(RnnSeq2Seq rnn, const torch::Tensor& src, const torch::Tensor& tgt,
                           const LossOptions& options, double teacher_forcing) {
  const auto target_in = tgt.narrow(1, 0, tgt.size(1) - 1), targets = tgt.narrow(1, 1, tgt.size(1) - 1);
  if (teacher_forcing >= 1.0) {
    auto& decoder = *rnn->decoder;
    return sequence_loss_sum_from_features([&decoder](const torch::Tensor& rows) { return decoder.output(rows); },
                                           rnn->output_features(src, target_in), targets, options);
  }
  const auto identity = [](const torch::Tensor& logits) { return logits; };
  return sequence_loss_sum_from_features(identity, rnn->forward(src, target_in, teacher_forcing), targets, options);
}

}  // namespace

torch::Tensor model_loss_share(const TranslationModel& model, const torch::Tensor& src, const torch::Tensor& tgt,
                               const LossOptions& options, const LossDenominators& batch, double teacher_forcing) {
  const auto targets = tgt.narrow(1, 1, tgt.size(1) - 1);
  if (model.is_rnn())
    return loss_from_sum(rnn_loss_sum(model.rnn(), src, tgt, options, teacher_forcing), batch, options);
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
                          ? loss_from_sum(rnn_loss_sum(model.rnn(), src, tgt, options, 1.0),
                                          loss_denominators(targets, options), options)
                          : sequence_loss_from_states(*model.transformer()->master_decoder,
                                                      model.transformer()->final_states(src, tgt), targets, options);
    total += loss.item<double>() * static_cast<double>(rows);
  }
  module.train(was_training);
  return n > 0 ? total / static_cast<double>(n) : 0.0;
}

}  // namespace dls

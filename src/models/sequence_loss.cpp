#include "dls/models/sequence_loss.h"

#include <torch/torch.h>

namespace dls {

namespace {

// The standard per-token loss of log_probs [..., V] against targets [...]: NLL, or with
// label smoothing (1 - e) * NLL + e * mean over the vocabulary of -log p.
torch::Tensor per_token_loss(const torch::Tensor& log_probs, const torch::Tensor& targets, const LossOptions& options) {
  const auto nll = -log_probs.gather(-1, targets.unsqueeze(-1)).squeeze(-1);
  if (options.label_smoothing <= 0) return nll;
  // A never-predicted column's -inf would make every token's mean -inf.
  TORCH_CHECK(options.never_predicted.empty(),
              "label smoothing needs every output column; this model never predicts some (DLStudio's outputs)");
  return (1.0 - options.label_smoothing) * nll - options.label_smoothing * log_probs.mean(-1);
}

// [B, L-1] bool: the targets a loss counts (not <pad>, not a word the model never predicts).
torch::Tensor counted_targets(const torch::Tensor& targets, const LossOptions& options) {
  auto counted = targets != options.pad_index;
  for (const auto index : options.never_predicted) counted = counted.logical_and(targets != index);
  return counted;
}

// `losses` [..] where `counted`, 0 elsewhere: a multiply would turn the +inf NLL of a
// never-predicted target into NaN (and its gradient is 0 either way).
torch::Tensor only_counted(const torch::Tensor& losses, const torch::Tensor& counted) {
  return losses.masked_fill(counted.logical_not(), 0.0);
}

// The options with the decoder's never-predicted columns added.
LossOptions with_outputs_of(const MasterDecoderWithMaskingImpl& decoder, LossOptions options) {
  options.never_predicted.insert(options.never_predicted.end(), decoder.never_predicted.begin(),
                                 decoder.never_predicted.end());
  return options;
}

}  // namespace

torch::Tensor sequence_loss(const torch::Tensor& log_probs, const torch::Tensor& targets, const LossOptions& options) {
  TORCH_CHECK(log_probs.dim() == 3 && targets.dim() == 2 && log_probs.size(0) == targets.size(0) &&
                  log_probs.size(1) == targets.size(1),
              "expected log-probabilities [B, L-1, V] and targets [B, L-1]");
  const auto counted = counted_targets(targets, options);
  if (options.dlstudio) {
    // -log p(target) at every position [B, L-1], averaged over the batch, summed over positions;
    // a <pad> target counts nowhere (DLStudio pads with EOS, which counts: <pad> marks only the
    // fully masked rows of a static-shape batch).
    const auto nll = -log_probs.gather(2, targets.unsqueeze(2)).squeeze(2);
    return only_counted(nll, counted).sum() / static_cast<double>(targets.size(0));
  }
  const auto per_token = per_token_loss(log_probs, targets, options);  // [B, L-1]
  return only_counted(per_token, counted).sum() / counted.sum().to(per_token.dtype()).clamp_min(1.0);
}

torch::Tensor sequence_loss_from_states(MasterDecoderWithMaskingImpl& decoder, const torch::Tensor& states,
                                        const torch::Tensor& targets, const LossOptions& loss_options) {
  TORCH_CHECK(
      states.dim() == 3 && targets.dim() == 2 && states.size(0) == targets.size(0) && states.size(1) == targets.size(1),
      "expected final states [B, L-1, M] and targets [B, L-1]");
  const auto options = with_outputs_of(decoder, loss_options);
  // The loss in fp32, under autocast (--precision bf16) too.
  if (options.dlstudio) {
    return sequence_loss(torch::log_softmax(decoder.scores(states), -1, torch::kFloat), targets, options);
  }
  // Rows of real target tokens only: [B, L-1, M] -> [N, M] -> log-probabilities [N, V].
  const auto real = counted_targets(targets, options).reshape({-1}).nonzero().squeeze(1);
  if (real.numel() == 0) return (states.sum() * 0.0);  // no real token: loss 0, as sequence_loss
  const auto rows = states.reshape({-1, states.size(2)}).index_select(0, real);
  const auto real_targets = targets.reshape({-1}).index_select(0, real);
  return per_token_loss(torch::log_softmax(decoder.scores(rows), -1, torch::kFloat), real_targets, options).mean();
}

torch::Tensor sequence_loss_sum_from_states(MasterDecoderWithMaskingImpl& decoder, const torch::Tensor& states,
                                            const torch::Tensor& targets, const LossOptions& loss_options) {
  return sequence_loss_sum_from_features([&decoder](const torch::Tensor& rows) { return decoder.scores(rows); }, states,
                                         targets, with_outputs_of(decoder, loss_options));
}

torch::Tensor sequence_loss_sum_from_features(const OutputLayer& output, const torch::Tensor& features,
                                              const torch::Tensor& targets, const LossOptions& options) {
  TORCH_CHECK(features.dim() == 3 && targets.dim() == 2 && features.size(0) == targets.size(0) &&
                  features.size(1) == targets.size(1),
              "expected features [B, T, F] and targets [B, T]");
  // DLStudio's loss is the plain NLL, smoothing or not (as sequence_loss).
  LossOptions per_token = options;
  if (per_token.dlstudio) per_token.label_smoothing = 0;
  const auto counted = counted_targets(targets, per_token);  // [B, T]
  if (per_token.all_output_rows || per_token.dlstudio) {     // (DLStudio's loss counts nearly every target)
    // [B, T, F] -> log-probabilities [B, T, V] in fp32 (under autocast too), masked.
    const auto loss = per_token_loss(torch::log_softmax(output(features), -1, torch::kFloat), targets, per_token);
    return only_counted(loss, counted).sum();
  }
  // Rows of counted targets only: [B, T, F] -> [N, F] -> log-probabilities [N, V].
  const auto rows = counted.reshape({-1}).nonzero().squeeze(1);
  if (rows.numel() == 0) return features.sum() * 0.0;  // nothing counted: 0, with a graph to every feature
  const auto picked = features.reshape({-1, features.size(2)}).index_select(0, rows);
  const auto picked_targets = targets.reshape({-1}).index_select(0, rows);
  return per_token_loss(torch::log_softmax(output(picked), -1, torch::kFloat), picked_targets, per_token).sum();
}

torch::Tensor loss_from_sum(const torch::Tensor& sum, const LossDenominators& batch, const LossOptions& options) {
  if (options.dlstudio) return sum / batch.rows;
  return batch.real_tokens > 0 ? sum / batch.real_tokens : sum;
}

LossDenominators loss_denominators(const torch::Tensor& targets, const LossOptions& options) {
  LossDenominators d;
  d.rows = static_cast<double>(targets.size(0));
  if (!options.dlstudio) d.real_tokens = counted_targets(targets, options).sum().item<double>();
  return d;
}

torch::Tensor chunk_loss_share(const torch::Tensor& loss, const LossDenominators& chunk, const LossDenominators& batch,
                               const LossOptions& options) {
  if (options.dlstudio) return loss * (chunk.rows / batch.rows);  // a mean over rows
  // A mean over real tokens (a chunk without any has loss 0, and a share of 0).
  return batch.real_tokens > 0 ? loss * (chunk.real_tokens / batch.real_tokens) : loss;
}

torch::Tensor sequence_loss_share(const torch::Tensor& log_probs, const torch::Tensor& targets,
                                  const LossOptions& options, const LossDenominators& batch) {
  return chunk_loss_share(sequence_loss(log_probs, targets, options), loss_denominators(targets, options), batch,
                          options);
}

}  // namespace dls

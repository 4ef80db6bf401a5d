// Hand-made seq2seq batches and the loss share with every parameter's gradient, shared by
// the tests that prove a batch cut or padded differently trains the same.
#pragma once

#include <cstdint>
#include <vector>

#include <torch/torch.h>

#include "dls/data/vocabulary.h"
#include "dls/models/seq2seq_loss.h"

namespace dls::testing {

// SOS, `length` words in [4, vocab), EOS, then `padding` up to `width`: one row per length.
inline torch::Tensor padded_sentences(const std::vector<std::int64_t>& lengths, std::int64_t width, std::int64_t vocab,
                                      std::int64_t padding = data::Vocabulary::kPad) {
  auto rows = torch::full({static_cast<std::int64_t>(lengths.size()), width}, padding, torch::kLong);
  for (std::size_t i = 0; i < lengths.size(); ++i) {
    const auto row = static_cast<std::int64_t>(i);
    rows[row][0] = data::Vocabulary::kSos;
    rows[row].narrow(0, 1, lengths[i]).copy_(torch::randint(4, vocab, {lengths[i]}, torch::kLong));
    rows[row][lengths[i] + 1] = data::Vocabulary::kEos;
  }
  return rows;
}

struct LossAndGradients {
  double loss = 0;
  std::vector<torch::Tensor> gradients;  // one per parameter (zeros where none reached it)
};

// model_loss_share of (src, tgt) over the denominators of `denominators_of`'s targets (the
// unpadded batch's, as the training task computes them; by default tgt's own), and the
// gradient of every parameter.
inline LossAndGradients loss_and_gradients(Seq2SeqTransformer& model, const torch::Tensor& src,
                                           const torch::Tensor& tgt, const LossOptions& options,
                                           torch::Tensor denominators_of = {}) {
  if (!denominators_of.defined()) denominators_of = tgt;
  model->zero_grad();
  const auto batch = loss_denominators(denominators_of.narrow(1, 1, denominators_of.size(1) - 1), options);
  const auto loss = model_loss_share(model, src, tgt, options, batch);
  loss.backward();
  LossAndGradients out{loss.item<double>(), {}};
  for (const auto& p : model->parameters()) {
    out.gradients.push_back(p.grad().defined() ? p.grad().clone() : torch::zeros_like(p));
  }
  return out;
}

}  // namespace dls::testing

// Measuring a decoder-only language model on encoded sentences [N, L] (SOS w1 .. wn EOS
// <pad>...): the validation perplexity, exp of the mean negative log-likelihood per
// predicted token (every word and the EOS; padding is not predicted).
#pragma once

#include <cmath>
#include <cstdint>
#include <string>

#include <torch/types.h>

#include "dls/models/language_model.h"

namespace dls::eval {

struct TokenLikelihood {
  double nll_sum = 0;       // Σ -log p(token | tokens before it), natural log
  std::int64_t tokens = 0;  // predicted tokens
  double mean_nll() const { return tokens > 0 ? nll_sum / static_cast<double>(tokens) : NAN; }
  double perplexity() const { return std::exp(mean_nll()); }
  // exp(Σ NLL / units): per word when `units` counts the words (and EOS) the tokens spell,
  // which compares runs with different tokenizers.
  double perplexity_per(std::int64_t units) const {
    return units > 0 ? std::exp(nll_sum / static_cast<double>(units)) : NAN;
  }
};

// Sums over every sentence of tokens [N, L], in eval mode without gradients (training mode
// restored), in batches of batch_size. `progress` ("": none): the label of a progress line
// (info level) that a pass still running after `progress_after_s` shows -- a character
// model's validation over a long text takes minutes.
TokenLikelihood token_likelihood(LanguageModel& model, const torch::Tensor& tokens, std::int64_t pad_index,
                                 std::int64_t batch_size = 256, const std::string& progress = "",
                                 double progress_after_s = 3.0);

}  // namespace dls::eval

// The attention of an RNN encoder-decoder (the attention notes; Bahdanau et al. 2015,
// Luong et al. 2015): at every decoding step a query -- the decoder's state -- scores each
// encoder output (the keys, which are also the values), the scores become a distribution
// over the source positions (padding gets none), and the context vector is the outputs
// averaged by it. The score functions of the notes:
//
//   dot          q . k                      (query and key of one size)
//   scaled-dot   q . k / sqrt(d)
//   general      q^T W k                    (bilinear; W [Hq, Hk])
//   additive     v . tanh(W_k k + W_q q)    (Bahdanau's; W_k [A, Hk], W_q [A, Hq], v [A])
#pragma once

#include <cstdint>
#include <string>
#include <utility>

#include <torch/nn/module.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/pimpl.h>

#include "dls/util/enum_names.h"

namespace dls {

enum class AttentionScore { kDot, kScaledDot, kGeneral, kAdditive };
inline const util::EnumNames<AttentionScore> kAttentionScoreNames("attention score",
                                                                  {{AttentionScore::kDot, "dot"},
                                                                   {AttentionScore::kScaledDot, "scaled-dot"},
                                                                   {AttentionScore::kGeneral, "general"},
                                                                   {AttentionScore::kAdditive, "additive"}});
inline std::string to_string(AttentionScore score) { return kAttentionScoreNames.name(score); }
// Throws std::invalid_argument listing the names.
inline AttentionScore parse_attention_score(const std::string& name) { return kAttentionScoreNames.parse(name); }

class RnnAttentionImpl : public torch::nn::Module {
 public:
  // `attention_size`: additive only (A). dot and scaled-dot need query_size == key_size
  // (std::invalid_argument otherwise).
  RnnAttentionImpl(AttentionScore score, std::int64_t query_size, std::int64_t key_size,
                   std::int64_t attention_size = 0);

  // query [B, Hq], keys [B, S, Hk] -> scores [B, S] (before the softmax).
  torch::Tensor scores(const torch::Tensor& query, const torch::Tensor& keys);

  // Keys projected once per sentence for the additive score (W_k k: [B, S, A]); the other
  // scores return `keys` unchanged. forward() takes what this returns.
  torch::Tensor prepare_keys(const torch::Tensor& keys);

  // query [B, Hq], keys [B, S, Hk], prepared = prepare_keys(keys), key_padding [B, S] bool
  // (true: padding, weight 0; every row needs one real position) -> {context [B, Hk],
  // weights [B, S]}, the weights summing to 1 over each row's real positions.
  std::pair<torch::Tensor, torch::Tensor> forward(const torch::Tensor& query, const torch::Tensor& keys,
                                                  const torch::Tensor& prepared, const torch::Tensor& key_padding);

  AttentionScore score() const { return score_; }

 private:
  torch::Tensor scores_of_prepared(const torch::Tensor& query, const torch::Tensor& prepared);

  AttentionScore score_;
  std::int64_t key_size_;
  torch::nn::Linear W{nullptr};    // general: [Hq, Hk] (no bias)
  torch::nn::Linear W_k{nullptr};  // additive: [A, Hk] (no bias)
  torch::nn::Linear W_q{nullptr};  // additive: [A, Hq] (with the bias)
  torch::nn::Linear v{nullptr};    // additive: [1, A] (no bias)
};
TORCH_MODULE(RnnAttention);

}  // namespace dls

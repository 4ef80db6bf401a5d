#include "dls/layers/rnn_attention.h"

#include <cmath>
#include <limits>
#include <stdexcept>

#include <torch/torch.h>

namespace dls {

RnnAttentionImpl::RnnAttentionImpl(AttentionScore score, std::int64_t query_size, std::int64_t key_size,
                                   std::int64_t attention_size)
    : score_(score), key_size_(key_size) {
  switch (score) {
    case AttentionScore::kDot:
    case AttentionScore::kScaledDot:
      if (query_size != key_size) {
        throw std::invalid_argument(to_string(score) + " attention needs the decoder state (" +
                                    std::to_string(query_size) + ") and the encoder outputs (" +
                                    std::to_string(key_size) + ") of one size; use general or additive");
      }
      break;
    case AttentionScore::kGeneral:
      W = register_module("W", torch::nn::Linear(torch::nn::LinearOptions(key_size, query_size).bias(false)));
      break;
    case AttentionScore::kAdditive:
      if (attention_size <= 0) throw std::invalid_argument("additive attention needs an attention size");
      W_k = register_module("W_k", torch::nn::Linear(torch::nn::LinearOptions(key_size, attention_size).bias(false)));
      W_q = register_module("W_q", torch::nn::Linear(query_size, attention_size));
      v = register_module("v", torch::nn::Linear(torch::nn::LinearOptions(attention_size, 1).bias(false)));
      break;
  }
}

torch::Tensor RnnAttentionImpl::prepare_keys(const torch::Tensor& keys) {
  switch (score_) {
    case AttentionScore::kGeneral:
      return W->forward(keys);  // [B, S, Hq]: q^T W k = q . (W k)
    case AttentionScore::kAdditive:
      return W_k->forward(keys);  // [B, S, A]
    default:
      return keys;
  }
}

torch::Tensor RnnAttentionImpl::scores_of_prepared(const torch::Tensor& query, const torch::Tensor& prepared) {
  if (score_ == AttentionScore::kAdditive) {
    // v . tanh(W_k k + W_q q): [B, S, A] + [B, 1, A] -> [B, S]
    return v->forward(torch::tanh(prepared + W_q->forward(query).unsqueeze(1))).squeeze(-1);
  }
  auto s = torch::bmm(prepared, query.unsqueeze(-1)).squeeze(-1);  // [B, S, H] x [B, H, 1] -> [B, S]
  if (score_ == AttentionScore::kScaledDot) s = s / std::sqrt(static_cast<double>(key_size_));
  return s;
}

torch::Tensor RnnAttentionImpl::scores(const torch::Tensor& query, const torch::Tensor& keys) {
  return scores_of_prepared(query, prepare_keys(keys));
}

std::pair<torch::Tensor, torch::Tensor> RnnAttentionImpl::forward(const torch::Tensor& query, const torch::Tensor& keys,
                                                                  const torch::Tensor& prepared,
                                                                  const torch::Tensor& key_padding) {
  auto s = scores_of_prepared(query, prepared);
  if (key_padding.defined()) s = s.masked_fill(key_padding, -std::numeric_limits<float>::infinity());
  const auto weights = torch::softmax(s, -1);                              // [B, S]
  const auto context = torch::bmm(weights.unsqueeze(1), keys).squeeze(1);  // [B, 1, S] x [B, S, Hk] -> [B, Hk]
  return {context, weights};
}

}  // namespace dls

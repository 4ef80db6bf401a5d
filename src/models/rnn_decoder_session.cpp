#include "dls/models/rnn_decoder_session.h"

#include <torch/torch.h>

namespace dls {

RnnDecoderSession::RnnDecoderSession(RnnSeq2Seq model, const torch::Tensor& src, std::int64_t sos,
                                     std::int64_t max_length)
    : model_(std::move(model)) {
  TORCH_CHECK(src.dim() == 2, "source tokens must be [B, S]");
  start_tokens(src, sos, max_length > 0 ? max_length : model_->config().max_seq_length);
  RnnState state;
  source_ = model_->encode(src, &state);
  carry_ = model_->decoder->start(state, src.size(0));
}

torch::Tensor RnnDecoderSession::step(bool log_probabilities) {
  check_room();
  // The newest token [R] moves the carry one position; its logits predict the next word.
  carry_ = model_->decoder->step(tokens().select(1, length() - 1), carry_, source_);
  return log_probabilities ? carry_.logits.log_softmax(-1) : carry_.logits;
}

void RnnDecoderSession::select_rows(const torch::Tensor& index) {
  select_token_rows(index);
  const auto rows = [&index](torch::Tensor& t, std::int64_t dim) {
    if (t.defined()) t = t.index_select(dim, index);
  };
  rows(source_.outputs, 0);
  rows(source_.prepared, 0);
  rows(source_.padding, 0);
  rows(carry_.state.h, 1);  // [layers, R, H]
  rows(carry_.state.c, 1);
  rows(carry_.feed, 0);
  rows(carry_.logits, 0);
  rows(carry_.weights, 0);
}

}  // namespace dls

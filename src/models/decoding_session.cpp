#include "dls/models/decoding_session.h"

#include <torch/torch.h>

namespace dls {

void DecodingSession::start_tokens(const torch::Tensor& src, std::int64_t sos, std::int64_t max_length) {
  TORCH_CHECK(max_length > 1, "a translation needs at least 2 positions (SOS and one word)");
  capacity_ = max_length;
  length_ = 1;
  tokens_ = torch::full({src.size(0), capacity_}, sos, src.options().dtype(torch::kLong));
}

void DecodingSession::check_room() const {
  TORCH_CHECK(length_ < capacity_, "the sentence is already at its maximum length ", capacity_);
}

void DecodingSession::append(const torch::Tensor& words) {
  check_room();
  TORCH_CHECK(words.dim() == 1 && words.size(0) == tokens_.size(0), "need one word per row");
  tokens_.select(1, length_).copy_(words);
  ++length_;
}

void DecodingSession::select_token_rows(const torch::Tensor& index) { tokens_ = tokens_.index_select(0, index); }

}  // namespace dls

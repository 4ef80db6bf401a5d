#include "dls/models/decoder_session.h"

#include <algorithm>

#include <torch/torch.h>

#include "dls/layers/feed_forward.h"

namespace dls {

DecoderSession::DecoderSession(Seq2SeqTransformer model, const torch::Tensor& src, std::int64_t sos,
                               const torch::Tensor& src_padding, std::int64_t max_length)
    : model_(std::move(model)) {
  const auto& config = model_->config().transformer();
  cached_ = config.layout() == Layout::kVaswani;
  trained_ = config.max_seq_length();
  capacity_ = max_length > 0 ? max_length : trained_;
  TORCH_CHECK(!config.flattened() || capacity_ == trained_, "the dlstudio layout decodes exactly L = ", trained_,
              " positions, not ", capacity_);
  TORCH_CHECK(capacity_ > 1, "a translation needs at least 2 positions (SOS and one word)");
  TORCH_CHECK(src.dim() == 2, "source tokens must be [B, L]");
  auto encoded = model_->encode(src, src_padding);
  memories_ = std::move(encoded.memories);
  if (encoded.padding.defined()) memory_mask_ = key_padding_mask(encoded.padding);
  // Positions beyond the prefix are never seen (zeroed rows / causal caches); fill with sos.
  tokens_ = torch::full({src.size(0), capacity_}, sos, src.options().dtype(torch::kLong));
  if (cached_) caches_.resize(model_->config().num_decoders());
}

torch::Tensor DecoderSession::step(bool log_probabilities) {
  TORCH_CHECK(length_ < capacity_, "the sentence is already at its maximum length ", capacity_);
  if (cached_) {
    // Feed the newest token only: [R, 1] at position length-1.
    const auto x = model_->embeddings_generator_es(tokens_.narrow(1, length_ - 1, 1), length_ - 1);
    return model_->master_decoder->predict_next(x, memories_, memory_mask_, caches_, capacity_, log_probabilities);
  }
  // The prefix and zeroed rows after it: L rows as in training (the same numbers as ever for
  // a translation within L), past L the prefix and the position predicted only.
  const auto rows = std::min(capacity_, std::max(trained_, length_ + 1));
  const auto target = model_->embeddings_generator_es(tokens_.narrow(1, 0, rows));  // [R, rows, M]
  return model_->master_decoder->predict_word(target, memories_, length_, nullptr, log_probabilities);
}

void DecoderSession::append(const torch::Tensor& words) {
  TORCH_CHECK(length_ < capacity_, "the sentence is already at its maximum length ", capacity_);
  TORCH_CHECK(words.dim() == 1 && words.size(0) == tokens_.size(0), "need one word per row");
  tokens_.select(1, length_).copy_(words);
  ++length_;
}

void DecoderSession::select_rows(const torch::Tensor& index) {
  tokens_ = tokens_.index_select(0, index);
  // dlstudio memories are [H, B, L, s], vaswani's [B, H, L, s].
  const int64_t row_dim = cached_ ? 0 : 1;
  for (auto& memory : memories_) {
    memory.keys = memory.keys.index_select(row_dim, index);
    memory.values = memory.values.index_select(row_dim, index);
  }
  if (memory_mask_.defined()) memory_mask_ = memory_mask_.index_select(0, index);
  for (auto& cache : caches_) {
    if (cache.keys.defined()) cache.reorder(index);
  }
}

}  // namespace dls

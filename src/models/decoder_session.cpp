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
  const auto capacity = max_length > 0 ? max_length : trained_;
  TORCH_CHECK(!config.flattened() || capacity == trained_, "the dlstudio layout decodes exactly L = ", trained_,
              " positions, not ", capacity);
  TORCH_CHECK(src.dim() == 2, "source tokens must be [B, L]");
  auto encoded = model_->encode(src, src_padding);
  memories_ = std::move(encoded.memories);
  if (encoded.padding.defined()) memory_mask_ = key_padding_mask(encoded.padding);
  // Positions beyond the prefix are never seen (zeroed rows / causal caches).
  start_tokens(src, sos, capacity);
  if (cached_) caches_.resize(model_->config().num_decoders());
}

torch::Tensor DecoderSession::step(bool log_probabilities) {
  check_room();
  const auto length = this->length();
  if (cached_) {
    // Feed the newest token only: [R, 1] at position length-1.
    const auto x = model_->embeddings_generator_es(tokens().narrow(1, length - 1, 1), length - 1);
    return model_->master_decoder->predict_next(x, memories_, memory_mask_, caches_, max_length(), log_probabilities);
  }
  // The prefix and zeroed rows after it: L rows as in training (the same numbers as ever for
  // a translation within L), past L the prefix and the position predicted only.
  const auto rows = std::min(max_length(), std::max(trained_, length + 1));
  const auto target = model_->embeddings_generator_es(tokens().narrow(1, 0, rows));  // [R, rows, M]
  return model_->master_decoder->predict_word(target, memories_, length, nullptr, log_probabilities);
}

void DecoderSession::select_rows(const torch::Tensor& index) {
  select_token_rows(index);
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

// Word-by-word decoding state of a Seq2SeqTransformer for one batch of source sentences.
//
// vaswani layout: the decoder's self-attention keys/values are cached, so each step costs
// one position. dlstudio layout: the flattened heads mix all positions, so each step runs
// the decoder stack on the whole (zero-masked) prefix, as DLStudio's masking prescribes.
// In both, the encoder runs once and each layer's cross-attention keys/values are
// computed once.
#pragma once

#include <cstdint>
#include <vector>

#include <torch/types.h>

#include "dls/layers/attention.h"
#include "dls/models/decoding_session.h"
#include "dls/models/seq2seq.h"

namespace dls {

class DecoderSession : public DecodingSession {
 public:
  // src [B, S] int64 (S = L, or any length for the layouts that are not dlstudio); every
  // row starts with the token `sos`. max_length: positions of a translation, SOS included
  // (0: the model's L; another value only for the layouts that are not dlstudio, whose
  // weights do not span L). Call under torch::NoGradGuard with the model in eval mode.
  DecoderSession(Seq2SeqTransformer model, const torch::Tensor& src, std::int64_t sos,
                 const torch::Tensor& src_padding = {}, std::int64_t max_length = 0);

  // Log-probabilities [R, V] of the next word of every row, given the tokens so far.
  // Call once per position, then append() the chosen words. log_probabilities = false:
  // the logits, whose argmax is the same word without normalising over the vocabulary.
  torch::Tensor step(bool log_probabilities = true) override;

  // Appends one word per row: words [R] int64.
  void append(const torch::Tensor& words) override;

  // Keeps, reorders or repeats rows: row i becomes old row index[i] (beam search).
  void select_rows(const torch::Tensor& index) override;

  std::int64_t length() const override { return length_; }        // tokens per row, SOS included
  std::int64_t max_length() const override { return capacity_; }  // L unless given
  std::int64_t rows() const override { return tokens_.size(0); }
  const torch::Tensor& tokens() const override { return tokens_; }  // [R, max_length], valid up to length()

 private:
  Seq2SeqTransformer model_;
  bool cached_;            // vaswani: incremental with key/value caches
  std::int64_t trained_;   // L: the positions the model was trained on
  std::int64_t capacity_;  // max_length
  std::int64_t length_ = 1;
  torch::Tensor tokens_;                   // [R, max_length]
  torch::Tensor memory_mask_;              // vaswani: [R, 1, 1, S] additive, or undefined
  std::vector<AttentionMemory> memories_;  // per decoder layer, rows follow tokens_
  std::vector<KeyValueCache> caches_;      // vaswani: per decoder layer
};

}  // namespace dls

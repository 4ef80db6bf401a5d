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

  torch::Tensor step(bool log_probabilities = true) override;
  void select_rows(const torch::Tensor& index) override;

 private:
  Seq2SeqTransformer model_;
  bool cached_;                            // vaswani: incremental with key/value caches
  std::int64_t trained_;                   // L: the positions the model was trained on
  torch::Tensor memory_mask_;              // vaswani: [R, 1, 1, S] additive, or undefined
  std::vector<AttentionMemory> memories_;  // per decoder layer, rows follow tokens_
  std::vector<KeyValueCache> caches_;      // vaswani: per decoder layer
};

}  // namespace dls

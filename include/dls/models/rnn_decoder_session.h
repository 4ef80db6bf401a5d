// Word-by-word decoding state of an RnnSeq2Seq for one batch of source sentences: the
// encoder runs once, each step runs the decoder one position (its recurrent state, and
// Luong's attentional vector, carried per row), so that greedy decoding, sampling, beam
// search and ensembles (eval/decoding.h) drive an RNN as they drive a transformer.
#pragma once

#include <cstdint>

#include <torch/types.h>

#include "dls/models/decoding_session.h"
#include "dls/models/rnn_seq2seq.h"

namespace dls {

class RnnDecoderSession : public DecodingSession {
 public:
  // src [B, S] int64 (SOS, tokens, EOS, <pad>...); max_length: positions of a translation,
  // SOS included (0: the config's max_seq_length). Call under torch::NoGradGuard with the
  // model in eval mode.
  RnnDecoderSession(RnnSeq2Seq model, const torch::Tensor& src, std::int64_t sos, std::int64_t max_length = 0);

  torch::Tensor step(bool log_probabilities = true) override;
  void select_rows(const torch::Tensor& index) override;

  // The attention weights [R, S] of the latest step (undefined before one).
  const torch::Tensor& latest_attention() const { return carry_.weights; }

 private:
  RnnSeq2Seq model_;
  RnnEncodedSource source_;
  DecoderStep carry_;  // after the tokens before the newest one (the state step() continues)
};

}  // namespace dls

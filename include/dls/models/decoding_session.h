// Word-by-word decoding of a batch of sentences, whatever the model: what greedy decoding,
// sampling and beam search (eval/decoding.h) drive. A transformer's DecoderSession
// (decoder_session.h) and an RNN encoder-decoder's RnnDecoderSession (rnn_decoder_session.h)
// implement it.
#pragma once

#include <cstdint>

#include <torch/types.h>

namespace dls {

class DecodingSession {
 public:
  virtual ~DecodingSession() = default;

  // Log-probabilities [R, V] of the next word of every row, given the tokens so far.
  // Call once per position, then append() the chosen words. log_probabilities = false:
  // the logits, whose argmax is the same word without normalising over the vocabulary.
  virtual torch::Tensor step(bool log_probabilities = true) = 0;
  // Appends one word per row: words [R] int64.
  virtual void append(const torch::Tensor& words) = 0;
  // Keeps, reorders or repeats rows: row i becomes old row index[i] (beam search).
  virtual void select_rows(const torch::Tensor& index) = 0;

  virtual std::int64_t length() const = 0;      // tokens per row, SOS included
  virtual std::int64_t max_length() const = 0;  // the most a row may hold, SOS and EOS included
  virtual std::int64_t rows() const = 0;
  virtual const torch::Tensor& tokens() const = 0;  // [R, max_length], valid up to length()
};

}  // namespace dls

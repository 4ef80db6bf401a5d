// Word-by-word decoding of a batch of sentences, whatever the model: what greedy decoding,
// sampling and beam search (eval/decoding.h) drive. A transformer's DecoderSession
// (decoder_session.h) and an RNN encoder-decoder's RnnDecoderSession (rnn_decoder_session.h)
// implement step() and the rows of their own state; the tokens chosen so far live here.
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
  void append(const torch::Tensor& words);
  // Keeps, reorders or repeats rows: row i becomes old row index[i] (beam search).
  virtual void select_rows(const torch::Tensor& index) = 0;

  std::int64_t length() const { return length_; }        // tokens per row, SOS included
  std::int64_t max_length() const { return capacity_; }  // the most a row may hold, SOS and EOS included
  std::int64_t rows() const { return tokens_.size(0); }
  const torch::Tensor& tokens() const { return tokens_; }  // [R, max_length], valid up to length()

 protected:
  // Every row of src [R, S] starts with `sos`; positions beyond the prefix are never read.
  void start_tokens(const torch::Tensor& src, std::int64_t sos, std::int64_t max_length);
  // The tokens' share of select_rows().
  void select_token_rows(const torch::Tensor& index);
  // Refuses a step or an append past max_length().
  void check_room() const;

 private:
  std::int64_t capacity_ = 0;
  std::int64_t length_ = 1;
  torch::Tensor tokens_;  // [R, max_length]
};

}  // namespace dls

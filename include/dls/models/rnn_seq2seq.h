// Attention before the transformer: an RNN encoder-decoder with attention, as DLStudio's
// Seq2SeqLearning module and the attention notes teach it (EncoderRNN, AttnDecoderRNN).
//
// The encoder embeds the source and runs a GRU or LSTM over it (bidirectional optional: the
// two directions' outputs concatenated, He = 2H; their final states joined by a tanh layer
// into the decoder's first state). At every target position the decoder attends over the
// encoder outputs (layers/rnn_attention.h) with its state as the query:
//
//   bahdanau  attention *before* the RNN step: c_t from s_{t-1}; s_t = RNN([e(y_{t-1}); c_t],
//             s_{t-1}); logits = W_o [s_t; c_t]
//   luong     attention *after* it, with input feeding: s_t = RNN([e(y_{t-1}); h~_{t-1}],
//             s_{t-1}); c_t from s_t; h~_t = tanh(W_c [c_t; s_t]); logits = W_o h~_t
//
// Token ids follow data::Vocabulary: SOS 0, EOS 1, <pad> 2. Padded source positions get no
// attention and do not move the encoder's final state (packed sequences).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <torch/nn/module.h>
#include <torch/nn/modules/embedding.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/modules/rnn.h>
#include <torch/nn/pimpl.h>

#include "dls/layers/dropout.h"
#include "dls/layers/rnn_attention.h"
#include "dls/util/enum_names.h"

namespace dls {

enum class RnnCell { kGru, kLstm };
enum class AttentionPlacement { kBahdanau, kLuong };
inline const util::EnumNames<RnnCell> kRnnCellNames("RNN cell", {{RnnCell::kGru, "gru"}, {RnnCell::kLstm, "lstm"}});
inline const util::EnumNames<AttentionPlacement> kAttentionPlacementNames("attention placement",
                                                                          {{AttentionPlacement::kBahdanau, "bahdanau"},
                                                                           {AttentionPlacement::kLuong, "luong"}});
inline std::string to_string(RnnCell cell) { return kRnnCellNames.name(cell); }
inline std::string to_string(AttentionPlacement placement) { return kAttentionPlacementNames.name(placement); }
inline RnnCell parse_rnn_cell(const std::string& name) { return kRnnCellNames.parse(name); }
inline AttentionPlacement parse_attention_placement(const std::string& name) {
  return kAttentionPlacementNames.parse(name);
}

struct RnnSeq2SeqConfig {
  std::int64_t source_vocab = 0;
  std::int64_t target_vocab = 0;
  std::int64_t embedding_size = 128;  // E
  std::int64_t hidden_size = 256;     // H, of every layer of both RNNs
  int layers = 1;
  bool bidirectional = true;  // the encoder's
  RnnCell cell = RnnCell::kGru;
  AttentionScore score = AttentionScore::kAdditive;
  AttentionPlacement placement = AttentionPlacement::kBahdanau;
  std::int64_t attention_size = 0;  // additive: A (0: H)
  double dropout = 0.1;             // on the embeddings and on what the output layer reads
  // L: the positions of the training data's sentences (SOS and EOS included). The weights
  // do not depend on it; decoding writes at most L positions unless told otherwise.
  std::int64_t max_seq_length = 0;

  std::int64_t encoder_output_size() const { return hidden_size * (bidirectional ? 2 : 1); }  // He
  // Throws std::invalid_argument with one line naming the setting at fault.
  void validate() const;
  // "GRU, bidirectional, 1 layer, E 128, H 256, additive attention (Bahdanau)"
  std::string summary() const;
};

// A recurrent state: h [layers, B, H], and c [layers, B, H] for an LSTM (undefined for a GRU).
struct RnnState {
  torch::Tensor h, c;
};

class EncoderRNNImpl : public torch::nn::Module {
 public:
  explicit EncoderRNNImpl(const RnnSeq2SeqConfig& config);
  // source [B, S] -> outputs [B, S, He] (zero at padding), the decoder's initial state.
  std::pair<torch::Tensor, RnnState> forward(const torch::Tensor& source);

 private:
  RnnSeq2SeqConfig config_;
  torch::nn::Embedding embedding{nullptr};
  torch::nn::GRU gru{nullptr};
  torch::nn::LSTM lstm{nullptr};
  torch::nn::Linear bridge{nullptr};  // bidirectional: [fwd; bwd] final state -> H, per layer
  Dropout dropout{nullptr};
};
TORCH_MODULE(EncoderRNN);

// What the decoder carries from one target position to the next.
struct DecoderStep {
  RnnState state;
  torch::Tensor feed;      // luong: h~_t [B, H] (input feeding); bahdanau: undefined
  torch::Tensor features;  // what the output layer reads: [B, H + He] (bahdanau) or [B, H] (luong), dropout applied
  torch::Tensor logits;    // [B, V] = W_o(features) (undefined when the step was asked for features only)
  torch::Tensor weights;   // attention [B, S]
};

// The encoder's outputs as every decoding step reads them.
struct RnnEncodedSource {
  torch::Tensor outputs;   // [B, S, He]
  torch::Tensor prepared;  // RnnAttention::prepare_keys(outputs)
  torch::Tensor padding;   // [B, S] bool
};

class AttnDecoderRNNImpl : public torch::nn::Module {
 public:
  explicit AttnDecoderRNNImpl(const RnnSeq2SeqConfig& config);
  // The first step's carry: the encoder's state, and a zero h~ for input feeding.
  DecoderStep start(const RnnState& encoder_state, std::int64_t batch) const;
  // One target position: previous tokens [B] and the previous step's carry. logits = false:
  // the features only (a teacher-forced training pass applies the output layer afterwards,
  // to the rows of real target words alone).
  DecoderStep step(const torch::Tensor& previous, const DecoderStep& carry, const RnnEncodedSource& source,
                   bool logits = true);
  // The output layer: features [..., F] -> logits [..., V].
  torch::Tensor output(const torch::Tensor& features) { return W_o(features); }

  RnnAttention attention{nullptr};

 private:
  RnnSeq2SeqConfig config_;
  torch::nn::Embedding embedding{nullptr};
  torch::nn::GRU gru{nullptr};
  torch::nn::LSTM lstm{nullptr};
  torch::nn::Linear W_c{nullptr};  // luong: [c; s] -> h~
  torch::nn::Linear W_o{nullptr};  // the output layer: -> V
  Dropout dropout{nullptr};
};
TORCH_MODULE(AttnDecoderRNN);

class RnnSeq2SeqImpl : public torch::nn::Module {
 public:
  explicit RnnSeq2SeqImpl(RnnSeq2SeqConfig config);

  // Training: source [B, S], target_in [B, T] (SOS y1 .. y_{T-1}) -> logits [B, T, V]. Each
  // position after the first reads the gold previous token with probability
  // `teacher_forcing` (one draw per position for the batch, from torch's generator), else
  // the model's own previous prediction (its argmax): 1 is plain teacher forcing, 0 free
  // running.
  torch::Tensor forward(const torch::Tensor& source, const torch::Tensor& target_in, double teacher_forcing = 1.0);

  // Teacher-forced training without the output layer: the features [B, T, F] that
  // decoder->output() turns into forward()'s logits. The loss applies it to the rows of real
  // target words only (sequence_loss_sum_from_features): over a 20,000-word vocabulary the
  // output layer is most of an RNN step's arithmetic, and a third of the rows are padding.
  torch::Tensor output_features(const torch::Tensor& source, const torch::Tensor& target_in);

  // Training and scoring: forward() with the attention of every position, weights [B, T, S].
  torch::Tensor forward_with_attention(const torch::Tensor& source, const torch::Tensor& target_in,
                                       torch::Tensor* weights);

  // Greedy decoding of `max_len` positions at most (every row stops at EOS): tokens
  // [B, T'] (EOS included where reached) and the attention of every step [B, T', S].
  std::pair<torch::Tensor, torch::Tensor> greedy(const torch::Tensor& source, std::int64_t max_len);

  RnnEncodedSource encode(const torch::Tensor& source, RnnState* state);
  const RnnSeq2SeqConfig& config() const { return config_; }

  EncoderRNN encoder{nullptr};
  AttnDecoderRNN decoder{nullptr};

 private:
  // The decoder over target_in: logits [B, T, V] (features_only: the features [B, T, F]).
  torch::Tensor run(const torch::Tensor& source, const torch::Tensor& target_in, double teacher_forcing,
                    torch::Tensor* weights, bool features_only = false);

  RnnSeq2SeqConfig config_;
};
TORCH_MODULE(RnnSeq2Seq);

}  // namespace dls

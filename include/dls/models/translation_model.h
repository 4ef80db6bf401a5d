// A translation model of either architecture behind one handle: DLStudio's transformer
// (Seq2SeqTransformer) or the RNN encoder-decoder with attention that came before it
// (RnnSeq2Seq). What training, evaluation, decoding and the Translator need of a model --
// log-probabilities of target sentences, a decoding session, the module itself -- is here,
// so that each of them takes either kind.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include <torch/nn/module.h>
#include <torch/types.h>

#include "dls/models/decoding_session.h"
#include "dls/models/rnn_seq2seq.h"
#include "dls/models/seq2seq.h"
#include "dls/util/enum_names.h"

namespace dls {

enum class Architecture { kTransformer, kRnnAttention };
inline const util::EnumNames<Architecture> kArchitectureNames("architecture",
                                                              {{Architecture::kTransformer, "transformer"},
                                                               {Architecture::kRnnAttention, "rnn-attention"}});
inline std::string to_string(Architecture architecture) { return kArchitectureNames.name(architecture); }
// Throws std::invalid_argument listing the names.
inline Architecture parse_architecture(const std::string& name) { return kArchitectureNames.parse(name); }

class TranslationModel {
 public:
  TranslationModel(Seq2SeqTransformer transformer);  // NOLINT: either module converts
  TranslationModel(RnnSeq2Seq rnn);                  // NOLINT

  Architecture architecture() const { return rnn_ ? Architecture::kRnnAttention : Architecture::kTransformer; }
  bool is_rnn() const { return static_cast<bool>(rnn_); }
  // The module as its kind (a holder sharing it); throws std::logic_error for the other kind.
  Seq2SeqTransformer transformer() const;
  RnnSeq2Seq rnn() const;

  torch::nn::Module& module() const;
  std::shared_ptr<torch::nn::Module> module_ptr() const;
  std::int64_t source_vocab() const;
  std::int64_t target_vocab() const;
  // L: the positions of the training sentences, SOS and EOS included.
  std::int64_t max_seq_length() const;
  // "TransformerFG", "TransformerPreLN", "RNN with Bahdanau attention".
  std::string name() const;
  // "FG/vaswani M=256 ...", "GRU, bidirectional, 1 layer, E 128, H 256, additive attention (Bahdanau)".
  std::string summary() const;

  // src [B, S], tgt [B, T] int64 (SOS first) -> log-probabilities [B, T-1, V] of target
  // words 1..T-1, each predicted from the source and the gold words before it.
  torch::Tensor log_probabilities(const torch::Tensor& src, const torch::Tensor& tgt) const;

  // The cross-attention of a teacher-forced pass: src [B, S], tgt [B, T] (SOS first) ->
  // weights [B, T-1, S], row j the attention of the step that predicts word j+1 (a
  // transformer's last layer, its heads averaged; an RNN's one attention).
  torch::Tensor cross_attention(const torch::Tensor& src, const torch::Tensor& tgt) const;

  // Word-by-word decoding of src [B, S] from `sos`; max_length: positions of a translation,
  // SOS included (0: L). Call under torch::NoGradGuard with the model in eval mode.
  std::unique_ptr<DecodingSession> start_decoding(const torch::Tensor& src, std::int64_t sos,
                                                  std::int64_t max_length = 0) const;

 private:
  Seq2SeqTransformer transformer_{nullptr};
  RnnSeq2Seq rnn_{nullptr};
};

}  // namespace dls

#include "dls/models/translation_model.h"

#include <stdexcept>

#include <torch/torch.h>

#include "dls/models/decoder_session.h"
#include "dls/models/rnn_decoder_session.h"

namespace dls {

TranslationModel::TranslationModel(Seq2SeqTransformer transformer) : transformer_(std::move(transformer)) {}
TranslationModel::TranslationModel(RnnSeq2Seq rnn) : rnn_(std::move(rnn)) {}

Seq2SeqTransformer TranslationModel::transformer() const {
  if (rnn_) throw std::logic_error("an RNN encoder-decoder, not a transformer");
  return transformer_;
}

RnnSeq2Seq TranslationModel::rnn() const {
  if (!rnn_) throw std::logic_error("a transformer, not an RNN encoder-decoder");
  return rnn_;
}

torch::nn::Module& TranslationModel::module() const { return *module_ptr(); }

std::shared_ptr<torch::nn::Module> TranslationModel::module_ptr() const {
  if (rnn_) return rnn_.ptr();
  return transformer_.ptr();
}

std::int64_t TranslationModel::source_vocab() const {
  return rnn_ ? rnn_->config().source_vocab : transformer_->config().src_vocab_size();
}

std::int64_t TranslationModel::target_vocab() const {
  return rnn_ ? rnn_->config().target_vocab : transformer_->config().tgt_vocab_size();
}

std::int64_t TranslationModel::max_seq_length() const {
  return rnn_ ? rnn_->config().max_seq_length : transformer_->config().transformer().max_seq_length();
}

std::string TranslationModel::name() const {
  if (rnn_) {
    return std::string("RNN with ") +
           (rnn_->config().placement == AttentionPlacement::kBahdanau ? "Bahdanau" : "Luong") + " attention";
  }
  return "Transformer" + to_string(transformer_->config().transformer().variant());
}

std::string TranslationModel::summary() const {
  return rnn_ ? rnn_->config().summary() : transformer_->config().summary();
}

torch::Tensor TranslationModel::log_probabilities(const torch::Tensor& src, const torch::Tensor& tgt) const {
  if (!rnn_) return transformer()->forward(src, tgt);
  return rnn()->forward(src, tgt.narrow(1, 0, tgt.size(1) - 1)).log_softmax(-1);  // [B, T-1, V]
}

torch::Tensor TranslationModel::cross_attention(const torch::Tensor& src, const torch::Tensor& tgt) const {
  torch::NoGradGuard no_grad;
  const auto target_in = tgt.narrow(1, 0, tgt.size(1) - 1);  // [B, T-1]
  if (rnn_) {
    torch::Tensor weights;  // [B, T-1, S]
    rnn()->forward_with_attention(src, target_in, &weights);
    return weights;
  }
  AttentionTrace trace;
  transformer()->forward(src, tgt, &trace);
  return trace.decoder_cross.back().mean(1);  // [B, T-1, S]: the queries that predict words 1..T-1
}

std::unique_ptr<DecodingSession> TranslationModel::start_decoding(const torch::Tensor& src, std::int64_t sos,
                                                                  std::int64_t max_length) const {
  if (rnn_) return std::make_unique<RnnDecoderSession>(rnn_, src, sos, max_length);
  return std::make_unique<DecoderSession>(transformer_, src, sos, torch::Tensor{}, max_length);
}

}  // namespace dls

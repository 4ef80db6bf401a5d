#include "dls/models/seq2seq.h"

#include <cmath>
#include <sstream>

#include <torch/torch.h>

#include "dls/data/vocabulary.h"
#include "dls/layers/feed_forward.h"
#include "dls/layers/saved_tensors.h"

namespace dls {

void Seq2SeqConfig::validate() const {
  transformer_.validate();
  TORCH_CHECK(num_encoders_ > 0 && num_decoders_ > 0, "need at least one encoder and decoder");
  TORCH_CHECK(src_vocab_size_ > 0 && tgt_vocab_size_ > 0, "vocabulary sizes must be positive");
  TORCH_CHECK(pad_index_ < std::min(src_vocab_size_, tgt_vocab_size_), "pad index outside the vocabularies");
  TORCH_CHECK(!tie_embeddings_ || transformer_.layout() == Layout::kVaswani, "tied embeddings need the vaswani layout");
  TORCH_CHECK(!tie_embeddings_ || src_vocab_size_ == tgt_vocab_size_,
              "tied embeddings need one vocabulary for both languages");
  TORCH_CHECK(!dlstudio_outputs_ || tgt_vocab_size_ > data::Vocabulary::kSpecialCount,
              "DLStudio's outputs need target words besides the special tokens");
}

std::string Seq2SeqConfig::summary() const {
  std::ostringstream out;
  out << to_string(transformer_.variant()) << "/" << to_string(transformer_.layout())
      << " M=" << transformer_.embedding_size() << " L=" << transformer_.max_seq_length()
      << " H=" << transformer_.num_heads() << " enc=" << num_encoders_ << " dec=" << num_decoders_
      << " vocab=" << src_vocab_size_ << "/" << tgt_vocab_size_;
  if (!transformer_.flattened()) out << " ffn=" << transformer_.ffn_multiplier() << "M";
  if (transformer_.effective_dropout() > 0) out << " dropout=" << transformer_.dropout();
  if (!masking_) out << " no-masking";
  if (tie_embeddings_) out << " tied-embeddings";
  if (dlstudio_outputs_) out << " dlstudio-outputs";
  return out.str();
}

Seq2SeqTransformerImpl::Seq2SeqTransformerImpl(const Seq2SeqConfig& config) : config_(config) {
  config.validate();
  const auto& t = config.transformer();
  // Untied: the modules are made in DLStudio's order (embeddings, encoder, decoder), so a seed
  // gives the same weights as before tying existed. Tied: the decoder's output layer comes
  // first, since its weight [V, M] is the one parameter both embeddings read.
  if (!config.tie_embeddings()) {
    embeddings_generator_en =
        register_module("embeddings_generator_en", EmbeddingsGenerator(config.src_vocab_size(), t));
    embeddings_generator_es =
        register_module("embeddings_generator_es", EmbeddingsGenerator(config.tgt_vocab_size(), t));
    master_encoder = register_module("master_encoder", MasterEncoder(t, config.num_encoders()));
    master_decoder =
        register_module("master_decoder", MasterDecoderWithMasking(t, config.num_decoders(), config.tgt_vocab_size()));
  } else {
    MasterDecoderWithMasking decoder(t, config.num_decoders(), config.tgt_vocab_size());
    {
      torch::NoGradGuard no_grad;
      decoder->out->weight.normal_(0.0, 1.0 / std::sqrt(static_cast<double>(t.embedding_size())));
    }
    embeddings_generator_en = register_module("embeddings_generator_en", EmbeddingsGenerator(decoder->out->weight, t));
    embeddings_generator_es = register_module("embeddings_generator_es", EmbeddingsGenerator(decoder->out->weight, t));
    master_encoder = register_module("master_encoder", MasterEncoder(t, config.num_encoders()));
    master_decoder = register_module("master_decoder", decoder);
  }
  master_decoder->masking = config.masking();
  if (config.dlstudio_outputs()) master_decoder->never_predicted = {data::Vocabulary::kPad, data::Vocabulary::kUnk};
}

torch::Tensor Seq2SeqTransformerImpl::padding_of(const torch::Tensor& tokens) const {
  if (config_.pad_index() < 0 || config_.transformer().layout() != Layout::kVaswani) return {};
  return tokens == config_.pad_index();
}

EncodedSource Seq2SeqTransformerImpl::encode(const torch::Tensor& src, const torch::Tensor& src_padding,
                                             AttentionTrace* trace) {
  TORCH_CHECK(src.dim() == 2, "source tokens must be [B, L]");
  EncodedSource encoded;
  encoded.padding = src_padding.defined() ? src_padding : padding_of(src);
  const auto mask = encoded.padding.defined() ? key_padding_mask(encoded.padding) : torch::Tensor();
  encoded.output =
      master_encoder(embeddings_generator_en(src), mask, trace != nullptr ? &trace->encoder_self : nullptr);
  encoded.memories = master_decoder->project_memories(encoded.output);
  return encoded;
}

torch::Tensor Seq2SeqTransformerImpl::forward(const torch::Tensor& src, const torch::Tensor& tgt, AttentionTrace* trace,
                                              const torch::Tensor& src_padding) {
  return torch::log_softmax(master_decoder->scores(final_states(src, tgt, trace, src_padding)), -1, torch::kFloat);
}

torch::Tensor Seq2SeqTransformerImpl::final_states(const torch::Tensor& src, const torch::Tensor& tgt,
                                                   AttentionTrace* trace, const torch::Tensor& src_padding) {
  TORCH_CHECK(src.dim() == 2 && tgt.dim() == 2 && src.size(0) == tgt.size(0),
              "source and target must be [B, L] with the same B");
  const auto padding = src_padding.defined() ? src_padding : padding_of(src);
  const auto mask = padding.defined() ? key_padding_mask(padding) : torch::Tensor();
  const auto encoder_out =
      master_encoder(embeddings_generator_en(src), mask, trace != nullptr ? &trace->encoder_self : nullptr);
  return master_decoder->final_states(embeddings_generator_es(tgt), encoder_out, padding, padding_of(tgt), trace);
}

Seq2SeqTransformer TransformerFG(Seq2SeqConfig config) {
  config.transformer().variant(Variant::kFG);
  return Seq2SeqTransformer(config);
}

Seq2SeqTransformer TransformerPreLN(Seq2SeqConfig config) {
  config.transformer().variant(Variant::kPreLN);
  return Seq2SeqTransformer(config);
}

ParameterCount count_parameters(const torch::nn::Module& module) {
  ParameterCount count;
  for (const auto& [name, p] : saved_parameters(module)) {  // each head's WQ, WK, WV apart, as DLStudio counts
    if (!p.requires_grad()) continue;
    count.parameters += p.numel();
    ++count.tensors;
  }
  return count;
}

}  // namespace dls

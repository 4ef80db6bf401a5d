#include "dls/models/language_model.h"

#include <sstream>

#include <torch/torch.h>

namespace dls {

void LanguageModelConfig::validate() const {
  transformer_.validate();
  TORCH_CHECK(transformer_.layout() == Layout::kVaswani,
              "the language model needs the vaswani layout (causal mask, cached keys/values), not ",
              to_string(transformer_.layout()));
  TORCH_CHECK(num_decoders_ > 0, "need at least one decoder");
  TORCH_CHECK(vocab_size_ > 0, "vocabulary size must be positive");
}

std::string LanguageModelConfig::summary() const {
  std::ostringstream out;
  out << to_string(transformer_.variant()) << "/" << to_string(transformer_.layout())
      << " M=" << transformer_.embedding_size() << " L=" << transformer_.max_seq_length()
      << " H=" << transformer_.num_heads() << " dec=" << num_decoders_ << " vocab=" << vocab_size_
      << " ffn=" << transformer_.ffn_multiplier() << "M";
  if (transformer_.effective_dropout() > 0) out << " dropout=" << transformer_.dropout();
  return out.str();
}

LanguageModelImpl::LanguageModelImpl(const LanguageModelConfig& config) : config_(config) {
  config.validate();
  const auto& t = config.transformer();
  embeddings_generator = register_module("embeddings_generator", EmbeddingsGenerator(config.vocab_size(), t));
  master_decoder =
      register_module("master_decoder", MasterDecoderWithMasking(t, config.num_decoders(), config.vocab_size(), false));
}

torch::Tensor LanguageModelImpl::final_states(const torch::Tensor& tokens) {
  TORCH_CHECK(tokens.dim() == 2, "tokens must be [B, T]");
  TORCH_CHECK(tokens.size(1) >= 1 && tokens.size(1) <= config_.transformer().max_seq_length(), "sequence of ",
              tokens.size(1), " tokens, the model takes 1 to ", config_.transformer().max_seq_length());
  // The decoder predicts positions 1..L'-1 of its L'-row input from the rows before them:
  // one padding row after the tokens makes it predict the token after each of them.
  const auto x = embeddings_generator(tokens);                                   // [B, T, M]
  const auto padded = torch::cat({x, torch::zeros_like(x.narrow(1, 0, 1))}, 1);  // [B, T+1, M]
  return master_decoder->final_states(padded, torch::Tensor());                  // [B, T, M]
}

torch::Tensor LanguageModelImpl::forward(const torch::Tensor& tokens) {
  // In fp32 under autocast too: perplexities add these up.
  return torch::log_softmax(master_decoder->scores(final_states(tokens)), -1, torch::kFloat);  // [B, T, V]
}

torch::Tensor LanguageModelImpl::next_logits(const torch::Tensor& tokens_new, std::vector<KeyValueCache>& caches) {
  TORCH_CHECK(tokens_new.dim() == 2 && tokens_new.size(1) >= 1, "new tokens must be [B, T]");
  const std::int64_t offset = caches.empty() ? 0 : caches.front().length;
  const std::int64_t capacity = config_.transformer().max_seq_length();
  TORCH_CHECK(offset + tokens_new.size(1) <= capacity, "the sequence would exceed L = ", capacity, " tokens");
  const auto x = embeddings_generator(tokens_new, offset);  // [B, T, M] at positions offset..
  return master_decoder->predict_next(x, std::vector<AttentionMemory>(caches.size()), torch::Tensor(), caches, capacity,
                                      false);  // [B, V]
}

}  // namespace dls

// A decoder-only (GPT-style) language model: the project's MasterDecoderWithMasking without
// cross-attention over DLStudio's EmbeddingsGenerator, trained on next-token prediction.
// Uses the vaswani layout (causal attention mask, so one pass predicts every position and
// decoding can cache the keys/values of earlier positions).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <torch/nn/module.h>
#include <torch/nn/pimpl.h>

#include "dls/layers/embeddings.h"
#include "dls/layers/transformer_config.h"
#include "dls/models/decoder.h"
#include "dls/util/declared.h"

namespace dls {

struct LanguageModelConfig {
  // Variant and sizes of every block; the layout must be vaswani (the default here). max_seq_length
  // is L, the longest token sequence (SOS and EOS included) the model sees.
  TORCH_ARG(TransformerConfig, transformer) = TransformerConfig().layout(Layout::kVaswani);
  // Number of decoder blocks (self-attention + FFN).
  TORCH_ARG(std::int64_t, num_decoders) = 4;
  // Vocabulary size, special tokens included.
  TORCH_ARG(std::int64_t, vocab_size) = 0;

 public:  // TORCH_ARG leaves the section private
  // Throws c10::Error (via TORCH_CHECK) for inconsistent sizes or another layout.
  void validate() const;
  // "FG/vaswani M=128 L=14 H=4 dec=3 vocab=12345 ffn=4M"
  std::string summary() const;

  // Its keys under "model." in a checkpoint and its flags (util/declared.h); L and the
  // vocabulary size come from the data.
  template <typename Fields>
  static void declare(LanguageModelConfig& m, Fields& f);
};

template <typename Fields>
void LanguageModelConfig::declare(LanguageModelConfig& m, Fields& f) {
  using util::Setting;
  auto& t = m.transformer();
  f.section("transformer", [&] { TransformerConfig::declare_sizes(t, f); });
  f(m.num_decoders(),
    Setting("num_decoders", "--decoders", "decoder blocks (self-attention + FFN)").range(1, 1000).fixed());
  f.section("transformer", [&] {
    TransformerConfig::declare_variant(
        t, f,
        Setting("variant", "--variant", "FG (post-LN) or PreLN").one_of(kVariantNames.names()).in_any_case().fixed());
    TransformerConfig::declare_layout(t, f, Setting("layout", "", ""));
    f(t.max_seq_length(), Setting("max_seq_length", "", ""));  // from the data
  });
  f(m.vocab_size(), Setting("vocab_size", "", ""));
}

class LanguageModelImpl : public torch::nn::Module {
 public:
  explicit LanguageModelImpl(const LanguageModelConfig& config);

  // tokens [B, T] int64 (T <= L) -> log-probabilities [B, T, V]; row t predicts token t+1
  // from tokens 0..t (causal: an output never depends on a later token).
  torch::Tensor forward(const torch::Tensor& tokens);

  // The same pass without the output layer: final states [B, T, M], with
  // forward() = log_softmax(master_decoder->scores(states)).
  torch::Tensor final_states(const torch::Tensor& tokens);

  // Incremental decoding: tokens_new [B, T] at positions caches[0].length .. +T-1 attend to
  // the cached positions and causally to each other; appends to the caches (one per
  // decoder block, capacity L). Returns the logits [B, V] (fp32) of the token after the last.
  torch::Tensor next_logits(const torch::Tensor& tokens_new, std::vector<KeyValueCache>& caches);

  const LanguageModelConfig& config() const { return config_; }

  EmbeddingsGenerator embeddings_generator{nullptr};
  MasterDecoderWithMasking master_decoder{nullptr};

 private:
  LanguageModelConfig config_;
};
TORCH_MODULE(LanguageModel);

}  // namespace dls

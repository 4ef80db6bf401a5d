// The English->Spanish transformer: DLStudio's TransformerFG / TransformerPreLN as one
// module whose config picks the variant and the layout.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <torch/nn/module.h>
#include <torch/nn/pimpl.h>

#include "dls/layers/embeddings.h"
#include "dls/layers/transformer_config.h"
#include "dls/models/attention_trace.h"
#include "dls/models/decoder.h"
#include "dls/models/encoder.h"
#include "dls/util/declared.h"

namespace dls {

struct Seq2SeqConfig {
  // Variant, layout and sizes shared by every block.
  TORCH_ARG(TransformerConfig, transformer);
  // Number of BasicEncoders in the MasterEncoder.
  TORCH_ARG(std::int64_t, num_encoders) = 4;
  // Number of BasicDecoderWithMaskings in the MasterDecoderWithMasking.
  TORCH_ARG(std::int64_t, num_decoders) = 4;
  // English (source) vocabulary size, special tokens included.
  TORCH_ARG(std::int64_t, src_vocab_size) = 0;
  // Spanish (target) vocabulary size, special tokens included.
  TORCH_ARG(std::int64_t, tgt_vocab_size) = 0;
  // Index of the padding token (-1: none); the vaswani layout never attends to it.
  TORCH_ARG(std::int64_t, pad_index) = -1;
  // DLStudio's masking flag. false (masking=False): in training and in forward() the
  // decoder sees the whole target sentence, the word it predicts and those after it
  // included (dlstudio layouts: no zeroed rows, one pass; vaswani: no causal mask).
  // Decoding a translation still sees only the words produced so far: there are no others.
  TORCH_ARG(bool, masking) = true;
  // One matrix [V, M] for the source embedding, the target embedding and the decoder's
  // output layer (Press & Wolf 2017; Vaswani et al. 3.4): needs one vocabulary for both
  // languages (src_vocab_size == tgt_vocab_size) and the vaswani layout.
  TORCH_ARG(bool, tie_embeddings) = false;
  // DLStudio's output layer: the log-softmax runs over its words only. <pad> and <unk>,
  // which DLStudio's vocabularies lack, score -inf (never predicted); their rows of the
  // output layer stay as initialised. Set for runs trained with DLStudio's loss, so that
  // their loss and translations are those of the exported model in DLStudio.
  TORCH_ARG(bool, dlstudio_outputs) = false;

 public:  // TORCH_ARG leaves the section private
  void validate() const;
  // "FG/dlstudio M=256 L=10 H=4 enc=4 dec=4 vocab=11262/21827"
  std::string summary() const;

  // Its keys under "model." in a checkpoint and its flags (util/declared.h); the vocabulary
  // sizes, L and padding come from the data.
  template <typename Fields>
  static void declare(Seq2SeqConfig& model, Fields& f);
};

template <typename Fields>
void Seq2SeqConfig::declare(Seq2SeqConfig& model, Fields& f) {
  using util::Setting;
  f(model.masking(), Setting("masking", "", "").when_absent("true"));  // before --no-masking: all masked
  f.property(
      Setting("", "--no-masking",
              "DLStudio's masking=False: the decoder sees the whole target sentence in training, the word "
              "it predicts included (recorded in the checkpoint)")
          .as_switch()
          .fixed(),
      [&] { return !model.masking(); }, [&](bool off) { model.masking(!off); });
  auto& t = model.transformer();
  f.section("transformer", [&] {
    TransformerConfig::declare_variant(t, f,
                                       Setting("variant", "", ""));  // seq2seq_train's --variant chooses the preset
    TransformerConfig::declare_layout(
        t, f,
        Setting("layout", "--layout", "dlstudio (flattened, the lectures'), positionwise or vaswani")
            .one_of(kLayoutNames.names())
            .in_any_case()
            .fixed());
    f(t.max_seq_length(), Setting("max_seq_length", "", ""));
    TransformerConfig::declare_sizes(t, f);
  });
  f(model.num_encoders(), Setting("num_encoders", "--encoders", "number of BasicEncoders").range(1, 1000).fixed());
  f(model.num_decoders(),
    Setting("num_decoders", "--decoders", "number of BasicDecoderWithMasking").range(1, 1000).fixed());
  f(model.src_vocab_size(), Setting("src_vocab_size", "", ""));
  f(model.tgt_vocab_size(), Setting("tgt_vocab_size", "", ""));
  f(model.pad_index(), Setting("pad_index", "", ""));
  f(model.tie_embeddings(), Setting("tie_embeddings", "--tie-embeddings",
                                    "one matrix for both embeddings and the output layer (needs --joint-vocab and "
                                    "the vaswani layout)")
                                .as_switch()
                                .default_when_absent()
                                .fixed());
  // Before the model said so: from_settings sets it from the run's loss.
  f(model.dlstudio_outputs(), Setting("dlstudio_outputs", "", "").default_when_absent());
}

// Everything the decoder needs from one batch of sources.
struct EncodedSource {
  torch::Tensor output;                   // [B, L, M]
  torch::Tensor padding;                  // [B, L] bool, true = padding (undefined: none)
  std::vector<AttentionMemory> memories;  // cross-attention keys/values, one per decoder layer
};

class Seq2SeqTransformerImpl : public torch::nn::Module {
 public:
  explicit Seq2SeqTransformerImpl(const Seq2SeqConfig& config);

  // src, tgt [B, L] int64 -> log-probabilities [B, L-1, V] of target words 1..L-1, each
  // predicted from the source and the target words before it.
  // src_padding [B, L] bool overrides the padding derived from pad_index.
  torch::Tensor forward(const torch::Tensor& src, const torch::Tensor& tgt, AttentionTrace* trace = nullptr,
                        const torch::Tensor& src_padding = {});

  // The same pass without the decoder's output layer: final states [B, L-1, M], with
  // forward() = log_softmax(master_decoder->scores(states)).
  torch::Tensor final_states(const torch::Tensor& src, const torch::Tensor& tgt, AttentionTrace* trace = nullptr,
                             const torch::Tensor& src_padding = {});

  EncodedSource encode(const torch::Tensor& src, const torch::Tensor& src_padding = {},
                       AttentionTrace* trace = nullptr);

  // [B, L] bool, true at pad_index (undefined when the config has no padding token or the
  // layout does not mask).
  torch::Tensor padding_of(const torch::Tensor& tokens) const;

  const Seq2SeqConfig& config() const { return config_; }

  EmbeddingsGenerator embeddings_generator_en{nullptr};
  EmbeddingsGenerator embeddings_generator_es{nullptr};
  MasterEncoder master_encoder{nullptr};
  MasterDecoderWithMasking master_decoder{nullptr};

 private:
  Seq2SeqConfig config_;
};
TORCH_MODULE(Seq2SeqTransformer);

// DLStudio's class names: the same module with the variant set.
Seq2SeqTransformer TransformerFG(Seq2SeqConfig config);
Seq2SeqTransformer TransformerPreLN(Seq2SeqConfig config);

// Learnable parameters and parameter tensors of a module (DLStudio prints both), the
// tensors as DLStudio has them: each head's WQ, WK and WV weight and bias apart.
struct ParameterCount {
  std::int64_t parameters = 0;
  std::int64_t tensors = 0;
};
ParameterCount count_parameters(const torch::nn::Module& module);

}  // namespace dls

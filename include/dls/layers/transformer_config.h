// The settings shared by every transformer block: which variant (where LayerNorm sits),
// which layout (DLStudio's sequence-flattened one or the standard position-wise one), and
// the sizes. Seq2SeqConfig, ViTConfig and LanguageModelConfig each hold one of these.
#pragma once

#include <cstdint>
#include <string>
#include <utility>

#include <torch/arg.h>

#include "dls/util/declared.h"
#include "dls/util/enum_names.h"

namespace dls {

// Where LayerNorm sits relative to the residual sums.
enum class Variant {
  kFG,     // DLStudio's TransformerFG (post-LN, Vaswani et al.): x = LN(x + f(x))
  kPreLN,  // DLStudio's TransformerPreLN (Xiong et al. 2020): x = x + f(LN(x))
};

// How the attention heads and the feed-forward network see a sentence.
enum class Layout {
  // DLStudio's sequence-flattened layout (the slides' results): each head's WQ/WK/WV is
  // Linear(L*s, L*s) over its whole flattened slice, scaling by 1/sqrt(s) after
  // softmax(QK^T)V, no W_O, FFN Linear(L*M, 2*L*M) -> ReLU -> Linear(2*L*M, L*M) over the
  // flattened sentence; the decoder is masked by zeroing future target rows.
  kDLStudio,
  // DLStudio >= 2.5's position-wise layout (behind its visTransformer results): per head
  // Linear(s, s) on the head's slice at every position, otherwise as kDLStudio (scaling
  // after the softmax, no W_O, no dropout, zero-masked decoder prefixes), FFN
  // Linear(M, f*M) -> ReLU -> Linear(f*M, M) per position.
  kPositionwise,
  // The standard transformer: per-position projections Linear(M, s) per head and an output
  // projection W_O, scaling before the softmax, causal and key-padding attention masks,
  // position-wise FFN Linear(M, f*M) -> ReLU -> Linear(f*M, M), dropout.
  kVaswani,
};

struct TransformerConfig {
  TORCH_ARG(Variant, variant) = Variant::kFG;
  TORCH_ARG(Layout, layout) = Layout::kDLStudio;
  // M: width of every token vector.
  TORCH_ARG(std::int64_t, embedding_size) = 256;
  // H: heads per attention layer; each head sees s = M / H columns.
  TORCH_ARG(std::int64_t, num_heads) = 4;
  // L: sentence length including SOS and EOS (every sentence is padded to it).
  TORCH_ARG(std::int64_t, max_seq_length) = 10;
  // f: hidden width factor of the position-wise FFN (vaswani layout only; the
  // dlstudio layout's FFN is fixed at 2*L*M as in DLStudio).
  TORCH_ARG(std::int64_t, ffn_multiplier) = 4;
  // Dropout on attention weights, sublayer outputs and embeddings (vaswani layout only;
  // DLStudio has none).
  TORCH_ARG(double, dropout) = 0.0;

 public:  // TORCH_ARG leaves the section private
  std::int64_t head_size() const { return embedding_size_ / num_heads_; }
  // DLStudio's ways (both its layouts): heads see slices of M, scaling after the softmax,
  // no W_O, no dropout, decoder masked by zeroing future rows, one copy per prefix.
  bool dlstudio_family() const { return layout_ != Layout::kVaswani; }
  // The sequence-flattened layout: projections and FFN see the whole sentence at once.
  bool flattened() const { return layout_ == Layout::kDLStudio; }
  // The width of one head's WQ/WK/WV: in, from the flattened slice (L*s), the slice at a
  // position (s) or the whole vector (M, vaswani); out, L*s (flattened) or s.
  std::int64_t projection_inputs() const {
    return flattened() ? max_seq_length_ * head_size() : dlstudio_family() ? head_size() : embedding_size_;
  }
  std::int64_t projection_outputs() const { return flattened() ? max_seq_length_ * head_size() : head_size(); }
  // Dropout actually applied (DLStudio's layouts have none).
  double effective_dropout() const { return dlstudio_family() ? 0.0 : dropout_; }
  // Throws c10::Error (via TORCH_CHECK) when the sizes are inconsistent.
  void validate() const;

  // Its keys and flags (util/declared.h), under the "transformer." section the model's
  // declaration is in. The sizes: --embedding-size, --heads, --ffn-multiplier and --dropout,
  // fixed by a run (its weights have these shapes).
  template <typename Fields>
  static void declare_sizes(TransformerConfig& t, Fields& f);
  // The variant and the layout under their keys ("variant", "layout"), with the flag
  // `setting` names, if any (a program may choose them with its preset instead).
  template <typename Fields>
  static void declare_variant(TransformerConfig& t, Fields& f, util::Setting setting);
  template <typename Fields>
  static void declare_layout(TransformerConfig& t, Fields& f, util::Setting setting);
};

// The names of the variants and layouts, in any case; "PostLN"/"Post-LN" and "Pre-LN" read too.
inline const util::EnumNames<Variant> kVariantNames(
    "variant", {{Variant::kFG, "FG"}, {Variant::kPreLN, "PreLN"}},
    {{Variant::kFG, "PostLN"}, {Variant::kFG, "Post-LN"}, {Variant::kPreLN, "Pre-LN"}}, true);
inline const util::EnumNames<Layout> kLayoutNames(
    "layout", {{Layout::kDLStudio, "dlstudio"}, {Layout::kPositionwise, "positionwise"}, {Layout::kVaswani, "vaswani"}},
    {}, true);

inline std::string to_string(Variant variant) { return kVariantNames.name(variant); }  // "FG" / "PreLN"
inline std::string to_string(Layout layout) { return kLayoutNames.name(layout); }
// Case-insensitive; throws std::invalid_argument listing the accepted names.
inline Variant parse_variant(const std::string& name) { return kVariantNames.parse(name); }
inline Layout parse_layout(const std::string& name) { return kLayoutNames.parse(name); }

template <typename Fields>
void TransformerConfig::declare_sizes(TransformerConfig& t, Fields& f) {
  using util::Setting;
  f(t.embedding_size(),
    Setting("embedding_size", "--embedding-size", "M, width of every token").range(1, 65536).fixed());
  f(t.num_heads(), Setting("num_heads", "--heads", "attention heads (M divisible by it)").range(1, 1024).fixed());
  f(t.ffn_multiplier(), Setting("ffn_multiplier", "--ffn-multiplier",
                                "FFN hidden width in units of M (positionwise, vaswani; the dlstudio layout's is "
                                "2*L*M)")
                            .range(1, 64)
                            .fixed());
  f(t.dropout(),
    Setting("dropout", "--dropout", "dropout on attention weights, sublayer outputs and embeddings (vaswani layout)")
        .range(0, 0.99)
        .fixed());
}

template <typename Fields>
void TransformerConfig::declare_variant(TransformerConfig& t, Fields& f, util::Setting setting) {
  f.property(
      std::move(setting), [&] { return to_string(t.variant()); },
      [&](const std::string& name) { t.variant(parse_variant(name)); });
}

template <typename Fields>
void TransformerConfig::declare_layout(TransformerConfig& t, Fields& f, util::Setting setting) {
  f.property(
      std::move(setting), [&] { return to_string(t.layout()); },
      [&](const std::string& name) { t.layout(parse_layout(name)); });
}

}  // namespace dls

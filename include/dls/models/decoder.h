// DLStudio's BasicDecoderWithMasking and MasterDecoderWithMasking.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include <torch/nn/module.h>
#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/modules/normalization.h>
#include <torch/nn/pimpl.h>

#include "dls/layers/attention.h"
#include "dls/layers/dropout.h"
#include "dls/layers/feed_forward.h"
#include "dls/layers/transformer_config.h"
#include "dls/models/attention_trace.h"

namespace dls {

struct DecoderMasks {
  torch::Tensor row_keep;     // dlstudio: [B', L, 1], 1 = visible row, 0 = zeroed future row
  torch::Tensor self_mask;    // vaswani: additive [B'|1, 1, Lq, Lq] (causal + target padding)
  torch::Tensor memory_mask;  // vaswani: additive [B, 1, 1, Lk] (source padding)
  // dlstudio: per position j, the rows whose FFN output at j is read afterwards (by the next
  // layer, or as the prediction after the last); W2 skips the rest. Empty: compute all.
  std::vector<RowRange> ffn_rows;       // every layer but the last
  std::vector<RowRange> last_ffn_rows;  // the last layer
};

// Self-attention, cross-attention, FFN.
//   FG:    z = norm1(x + SA(x)); z2 = norm2(XA(z)) [dlstudio: no residual, as DLStudio]
//          or norm2(z + XA(z)) [vaswani]; out = norm3(z2 + FFN(z2))
//   PreLN: y = x + SA(norm1(x)); y2 = y + XA(norm2(y)); out = y2 + FFN(norm3(y2))
// In the dlstudio layout the input's future rows are zeroed first (DLStudio's masking);
// unlike DLStudio's PreLN decoder, the masked input is the one used.
// Without cross-attention (a decoder-only language model) the XA step and norm2 are
// absent: FG out = norm3(z + FFN(z)), PreLN out = y + FFN(norm3(y)).
class BasicDecoderWithMaskingImpl : public torch::nn::Module {
 public:
  explicit BasicDecoderWithMaskingImpl(const TransformerConfig& config, bool cross_attention = true);

  // x [B', L, M]; memory: this layer's cross-attention keys/values of the encoder output.
  torch::Tensor forward(const torch::Tensor& x, const AttentionMemory& memory, const DecoderMasks& masks,
                        torch::Tensor* self_weights = nullptr, torch::Tensor* cross_weights = nullptr);

  // One decoding step (vaswani): x_new [B, T, M] at positions cache.length.. -> [B, T, M].
  torch::Tensor forward_cached(const torch::Tensor& x_new, const AttentionMemory& memory,
                               const torch::Tensor& memory_mask, KeyValueCache& cache, std::int64_t capacity);

  SelfAttention self_attention_layer{nullptr};
  torch::nn::LayerNorm norm1{nullptr};
  CrossAttention cross_attn_layer{nullptr};  // null without cross-attention
  torch::nn::LayerNorm norm2{nullptr};       // null without cross-attention
  torch::nn::Linear W1{nullptr}, W2{nullptr};
  torch::nn::LayerNorm norm3{nullptr};
  Dropout dropout{nullptr};

 private:
  using SelfAttentionFn = std::function<torch::Tensor(const torch::Tensor&)>;
  torch::Tensor sublayers(const torch::Tensor& x, const SelfAttentionFn& self_attention, const AttentionMemory& memory,
                          const torch::Tensor& memory_mask, torch::Tensor* cross_weights,
                          const std::vector<RowRange>* w2_rows);
  TransformerConfig config_;
};
TORCH_MODULE(BasicDecoderWithMasking);

// A stack of decoders, then out = Linear(M, V) and LogSoftmax. Position 0 (SOS) is never
// predicted: the outputs are the log-probabilities of target words 1 .. L-1.
// cross_attention = false: the decoder-only (GPT-style) stack of a language model; the
// encoder_out and memories arguments below are then ignored (pass undefined / empty).
class MasterDecoderWithMaskingImpl : public torch::nn::Module {
 public:
  MasterDecoderWithMaskingImpl(const TransformerConfig& config, std::int64_t num_decoders,
                               std::int64_t target_vocab_size, bool cross_attention = true);

  // target [B, L, M] (embedded target sentence), encoder_out [B, L, M]
  // -> log-probabilities [B, L-1, V]; row j-1 predicts word j from target words 0..j-1.
  // dlstudio: the L-1 zero-masked copies of the target are stacked along the batch axis
  // and the stack runs once. vaswani: one causal pass over positions 0..L-2.
  // memory_padding / target_padding: [B, L] bool, true = padding (vaswani).
  torch::Tensor forward(const torch::Tensor& target, const torch::Tensor& encoder_out,
                        const torch::Tensor& memory_padding = {}, const torch::Tensor& target_padding = {},
                        AttentionTrace* trace = nullptr);

  // The same pass without the output layer: the final states [B, L-1, M] from which
  // forward() = log_softmax(out(states)). Lets a loss send only some rows (the real target
  // tokens) through the output layer.
  torch::Tensor final_states(const torch::Tensor& target, const torch::Tensor& encoder_out,
                             const torch::Tensor& memory_padding = {}, const torch::Tensor& target_padding = {},
                             AttentionTrace* trace = nullptr);

  // The plain k-by-k loop of DLStudio (dlstudio layout): same result as forward().
  torch::Tensor forward_prefix_loop(const torch::Tensor& target, const torch::Tensor& encoder_out);

  // Cross-attention keys/values of every layer for an encoder output [B, L, M] (empty
  // memories, one per layer, without cross-attention).
  std::vector<AttentionMemory> project_memories(const torch::Tensor& encoder_out);
  bool has_cross_attention() const { return cross_attention_; }

  // dlstudio decoding: log-probabilities [B, V] of word k given target rows 0..k-1
  // (the rest is zeroed), target [B, L, M]. log_probabilities = false: the output layer's
  // scores (logits) instead, which rank the words the same way.
  torch::Tensor predict_word(const torch::Tensor& target, const std::vector<AttentionMemory>& memories, std::int64_t k,
                             AttentionTrace* trace = nullptr, bool log_probabilities = true);

  // vaswani decoding step: x_new [B, 1, M] at position caches[0].length -> [B, V]
  // (log-probabilities, or logits as for predict_word).
  torch::Tensor predict_next(const torch::Tensor& x_new, const std::vector<AttentionMemory>& memories,
                             const torch::Tensor& memory_mask, std::vector<KeyValueCache>& caches,
                             std::int64_t capacity, bool log_probabilities = true);

  // The output layer's scores of final states [..., M] -> [..., V], with the columns of
  // never_predicted at -inf (in place: they get no gradient). Every log-probability and
  // logit this decoder gives, and the losses from its final states, come from here.
  torch::Tensor scores(const torch::Tensor& states);

  torch::nn::ModuleList basic_decoder_arr{nullptr};
  torch::nn::Linear out{nullptr};
  // Output columns never predicted (Seq2SeqConfig::dlstudio_outputs: <pad> and <unk>,
  // which DLStudio's vocabularies lack); empty: the softmax runs over all of them.
  std::vector<std::int64_t> never_predicted;
  // dlstudio layout: W2 computes only the outputs that a later step reads (the same
  // result, ~20 % fewer FLOPs in DLStudio's config). false: compute them all (for A/B timing).
  bool skip_unread_ffn_outputs = true;
  // DLStudio's masking flag (Seq2SeqConfig::masking); false: forward() and final_states()
  // see the whole target, future words included. Decoding steps are unaffected.
  bool masking = true;

 private:
  // Runs the stack on x [B', L, M] with the given masks. trace_prefix_copies = r > 0: x is r
  // prefix copies of the batch (copy i keeps rows 0..i and predicts word i+1 at row i+1), and
  // the trace keeps, for each i, the attention of the query that predicts word i+1 as row i.
  torch::Tensor run_stack(torch::Tensor x, const std::vector<AttentionMemory>& memories, const DecoderMasks& masks,
                          AttentionTrace* trace, std::int64_t trace_prefix_copies = 0);
  TransformerConfig config_;
  bool cross_attention_;
};
TORCH_MODULE(MasterDecoderWithMasking);

// dlstudio masks for prefix lengths k_first .. k_first+r-1 over a batch of B:
// [r*B, L, 1], copy-major, 1 where position < k.
torch::Tensor prefix_row_keep(std::int64_t k_first, std::int64_t copies, std::int64_t batch, std::int64_t length,
                              const torch::TensorOptions& options);

// The same copies' rows that read the FFN output at each position j = 0..L-1: a layer
// before the last passes positions j < k on (the next layer zeroes the others), the last
// layer's position k is the prediction. Copy i holds rows i*B .. (i+1)*B-1.
std::vector<RowRange> prefix_ffn_rows(std::int64_t k_first, std::int64_t copies, std::int64_t batch,
                                      std::int64_t length, bool last_layer);

}  // namespace dls

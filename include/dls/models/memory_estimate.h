// What training a model takes in memory, estimated from its config before anything is
// allocated: the parameters (counted from the config, as the modules would create them),
// their fp32 weights, gradients and Adam's two moments (16 bytes a parameter), and a rough
// activation term for one batch (what autograd keeps for the backward pass). The trainers
// check it against the memory available (util/memory_check.h) and refuse, with the numbers,
// a model that would get the process killed by the OOM killer.
#pragma once

#include <cstdint>
#include <string>

#include "dls/layers/transformer_config.h"
#include "dls/models/language_model.h"
#include "dls/models/rnn_seq2seq.h"
#include "dls/models/seq2seq.h"
#include "dls/models/vit.h"

namespace dls {

struct TrainingMemory {
  std::int64_t parameters = 0;  // learnable parameters, a tied matrix counted once
  double state_bytes = 0;       // weights, gradients and optimizer moments
  double activation_bytes = 0;  // one batch's activations kept for the backward pass (rough)
  double total_bytes() const { return state_bytes + activation_bytes; }
};

// Bytes of training state per parameter: fp32 weight, gradient, Adam's m and v.
inline constexpr double kTrainingBytesPerParameter = 16;

// Parameters of one encoder block (self-attention, FFN, two LayerNorms) and of one decoder
// block (self-attention, cross-attention when `cross_attention`, FFN, three LayerNorms).
std::int64_t encoder_block_parameters(const TransformerConfig& config);
std::int64_t decoder_block_parameters(const TransformerConfig& config, bool cross_attention);

// Training a model on batches of `batch_size` examples.
TrainingMemory seq2seq_training_memory(const Seq2SeqConfig& config, std::int64_t batch_size);
TrainingMemory language_model_training_memory(const LanguageModelConfig& config, std::int64_t batch_size);
TrainingMemory vit_training_memory(const ViTConfig& config, std::int64_t batch_size);

// The RNN encoder-decoder with attention (rnn_seq2seq.h): its parameters exactly, and training it.
std::int64_t rnn_seq2seq_parameters(const RnnSeq2SeqConfig& config);
TrainingMemory rnn_seq2seq_training_memory(const RnnSeq2SeqConfig& config, std::int64_t batch_size);

// "the model (1.2e+10 parameters) and its training state (batch 50)": the start of a refusal.
std::string describe_training_memory(const TrainingMemory& memory, std::int64_t batch_size);

}  // namespace dls

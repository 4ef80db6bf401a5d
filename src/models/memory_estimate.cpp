#include "dls/models/memory_estimate.h"

#include <cstdio>

namespace dls {

namespace {

std::int64_t linear(std::int64_t in, std::int64_t out) { return in * out + out; }

// WQ, WK, WV of every head (attention.h's layouts), and W_O where the layout has one.
std::int64_t attention_parameters(const TransformerConfig& config) {
  const std::int64_t s = config.head_size(), L = config.max_seq_length(), M = config.embedding_size();
  const std::int64_t in = config.flattened() ? L * s : config.dlstudio_family() ? s : M;
  const std::int64_t out = config.flattened() ? L * s : s;
  const std::int64_t heads = config.num_heads() * 3 * linear(in, out);
  return config.layout() == Layout::kVaswani ? heads + linear(M, M) : heads;
}

// W1 and W2: over the flattened sentence (L*M -> 2*L*M) or per position (M -> f*M).
std::int64_t ffn_parameters(const TransformerConfig& config) {
  const std::int64_t M = config.embedding_size();
  const std::int64_t in = config.flattened() ? config.max_seq_length() * M : M;
  const std::int64_t hidden = config.flattened() ? 2 * in : config.ffn_multiplier() * M;
  return linear(in, hidden) + linear(hidden, in);
}

std::int64_t layer_norm_parameters(const TransformerConfig& config) { return 2 * config.embedding_size(); }

// Activations of one example through `blocks` blocks, in floats: per position the block's
// inputs, projections, sublayer outputs and FFN hidden layer (a dozen vectors of M and the
// hidden width twice), and each head's attention weights twice (softmax and its input).
double block_activation_floats(const TransformerConfig& config, std::int64_t blocks, double attention_layers) {
  const double L = static_cast<double>(config.max_seq_length()), M = static_cast<double>(config.embedding_size());
  const double hidden = config.flattened() ? 2 * M : static_cast<double>(config.ffn_multiplier()) * M;
  const double per_position = attention_layers * 6 * M + 6 * M + 2 * hidden;
  const double weights = attention_layers * 2 * static_cast<double>(config.num_heads()) * L * L;
  return static_cast<double>(blocks) * (L * per_position + weights);
}

// Logits, log-probabilities and their gradient over a vocabulary at every position.
double output_floats(std::int64_t positions, std::int64_t vocab_size) {
  return 3.0 * static_cast<double>(positions) * static_cast<double>(vocab_size);
}

TrainingMemory memory_of(std::int64_t parameters, double activation_floats_per_example, std::int64_t batch_size) {
  TrainingMemory memory;
  memory.parameters = parameters;
  memory.state_bytes = kTrainingBytesPerParameter * static_cast<double>(parameters);
  memory.activation_bytes = 4.0 * activation_floats_per_example * static_cast<double>(batch_size);
  return memory;
}

}  // namespace

std::int64_t encoder_block_parameters(const TransformerConfig& config) {
  return attention_parameters(config) + ffn_parameters(config) + 2 * layer_norm_parameters(config);
}

std::int64_t decoder_block_parameters(const TransformerConfig& config, bool cross_attention) {
  const std::int64_t attention = attention_parameters(config) * (cross_attention ? 2 : 1);
  const std::int64_t norms = layer_norm_parameters(config) * (cross_attention ? 3 : 2);
  return attention + ffn_parameters(config) + norms;
}

TrainingMemory seq2seq_training_memory(const Seq2SeqConfig& config, std::int64_t batch_size) {
  const auto& t = config.transformer();
  const std::int64_t M = t.embedding_size(), V_src = config.src_vocab_size(), V_tgt = config.tgt_vocab_size();
  const std::int64_t output = linear(M, V_tgt);
  // Tied: the output layer's weight is both embedding tables.
  const std::int64_t embeddings = config.tie_embeddings() ? 0 : (V_src + V_tgt) * M;
  const std::int64_t parameters = embeddings + config.num_encoders() * encoder_block_parameters(t) +
                                  config.num_decoders() * decoder_block_parameters(t, true) + output;
  const double activations = block_activation_floats(t, config.num_encoders(), 1) +
                             block_activation_floats(t, config.num_decoders(), 2) +
                             output_floats(t.max_seq_length(), V_tgt);
  return memory_of(parameters, activations, batch_size);
}

namespace {

// A torch::nn::GRU or LSTM of `layers` layers: per layer and direction, `gates` blocks of
// W_ih [H, in], W_hh [H, H] and two biases; the layers after the first read directions * H.
std::int64_t rnn_parameters(std::int64_t gates, std::int64_t in, std::int64_t H, std::int64_t layers,
                            std::int64_t directions) {
  std::int64_t total = 0;
  for (std::int64_t layer = 0; layer < layers; ++layer) {
    const std::int64_t input = layer == 0 ? in : directions * H;
    total += directions * gates * (H * input + H * H + 2 * H);
  }
  return total;
}

}  // namespace

std::int64_t rnn_seq2seq_parameters(const RnnSeq2SeqConfig& config) {
  const std::int64_t E = config.embedding_size, H = config.hidden_size, He = config.encoder_output_size();
  const std::int64_t gates = config.cell == RnnCell::kGru ? 3 : 4;
  const std::int64_t directions = config.bidirectional ? 2 : 1;
  const bool luong = config.placement == AttentionPlacement::kLuong;
  const std::int64_t A = config.attention_size > 0 ? config.attention_size : H;
  std::int64_t attention = 0;
  if (config.score == AttentionScore::kGeneral) attention = He * H;
  if (config.score == AttentionScore::kAdditive) attention = He * A + linear(H, A) + A;
  const std::int64_t encoder = config.source_vocab * E + rnn_parameters(gates, E, H, config.layers, directions) +
                               (config.bidirectional ? linear(2 * H, H) : 0);
  const std::int64_t decoder = config.target_vocab * E + attention +
                               rnn_parameters(gates, E + (luong ? H : He), H, config.layers, 1) +
                               (luong ? linear(He + H, H) : 0) + linear(luong ? H : H + He, config.target_vocab);
  return encoder + decoder;
}

TrainingMemory rnn_seq2seq_training_memory(const RnnSeq2SeqConfig& config, std::int64_t batch_size) {
  const double L = static_cast<double>(config.max_seq_length), H = static_cast<double>(config.hidden_size);
  const double He = static_cast<double>(config.encoder_output_size());
  const double gates = config.cell == RnnCell::kGru ? 3 : 4;
  const double A = static_cast<double>(config.attention_size > 0 ? config.attention_size : config.hidden_size);
  // Per position: each layer's gates before and after their activations and its states, in
  // both RNNs (the encoder's both ways), the embeddings, the context and the attention weights
  // over the source -- and additive attention's scores before and after tanh, A wide for every
  // source position ([B, T, S, A]: at H 1024 and batch 2048 the largest term).
  const double additive = config.score == AttentionScore::kAdditive ? 2 * L * A : 0;
  const double per_position = static_cast<double>(config.layers) * (2 * gates + 2) * (He + H) +
                              2.0 * static_cast<double>(config.embedding_size) + 2 * He + 2 * L + additive;
  const double activations = L * per_position + output_floats(config.max_seq_length, config.target_vocab);
  return memory_of(rnn_seq2seq_parameters(config), activations, batch_size);
}

TrainingMemory language_model_training_memory(const LanguageModelConfig& config, std::int64_t batch_size) {
  const auto& t = config.transformer();
  const std::int64_t M = t.embedding_size(), V = config.vocab_size();
  const std::int64_t parameters = V * M + config.num_decoders() * decoder_block_parameters(t, false) + linear(M, V);
  const double activations =
      block_activation_floats(t, config.num_decoders(), 1) + output_floats(t.max_seq_length(), V);
  return memory_of(parameters, activations, batch_size);
}

TrainingMemory vit_training_memory(const ViTConfig& config, std::int64_t batch_size) {
  const auto t = config.encoder_config();
  const std::int64_t M = t.embedding_size();
  std::int64_t parameters = 0;
  double stem_floats = 0;
  std::int64_t channels = config.channels(), size = config.image_size();
  for (const auto& conv : config.stem()) {  // Conv2d 3x3 -> GELU
    parameters += channels * conv.channels * 9 + conv.channels;
    size = (size - 1) / conv.stride + 1;
    stem_floats += 2.0 * static_cast<double>(conv.channels * size * size);
    channels = conv.channels;
  }
  if (config.pixel_attention().enabled()) {  // GroupNorm, qkv Conv1d(C, 3C, 1), proj Conv1d(C, C, 1)
    const std::int64_t C = config.stem()[static_cast<std::size_t>(config.pixel_attention().after - 1)].channels;
    parameters += 2 * C + linear(C, 3 * C) + linear(C, C);
  }
  const auto patch = config.patch_options();
  parameters += linear(patch.patch_dim(), M) + config.num_patches() * M + M;  // projection, positions, class token
  parameters += config.num_encoders() * encoder_block_parameters(t);
  if (t.variant() == Variant::kPreLN) parameters += 2 * M;
  parameters += linear(M, config.head_hidden_size()) + linear(config.head_hidden_size(), config.num_classes());
  const double activations = stem_floats + block_activation_floats(t, config.num_encoders(), 1);
  return memory_of(parameters, activations, batch_size);
}

std::string describe_training_memory(const TrainingMemory& memory, std::int64_t batch_size) {
  char text[160];
  std::snprintf(text, sizeof text, "the model (%.3g parameters) and its training state (batch %lld)",
                static_cast<double>(memory.parameters), static_cast<long long>(batch_size));
  return text;
}

}  // namespace dls

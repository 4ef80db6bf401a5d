#include "dls/models/rnn_seq2seq.h"

#include <stdexcept>

#include <spdlog/fmt/fmt.h>
#include <torch/torch.h>

#include "dls/layers/chunk_random.h"

namespace dls {

namespace {

constexpr std::int64_t kSos = 0, kEos = 1, kPad = 2;  // data::Vocabulary's

// One step (or a whole packed sequence) through whichever RNN the config has.
torch::Tensor run_rnn(torch::nn::GRU& gru, torch::nn::LSTM& lstm, const torch::Tensor& input, RnnState& state) {
  if (gru) {
    auto [output, h] = gru->forward(input, state.h);
    state.h = h;
    return output;
  }
  auto [output, hc] = lstm->forward(input, std::make_tuple(state.h, state.c));
  state.h = std::get<0>(hc);
  state.c = std::get<1>(hc);
  return output;
}

}  // namespace

void RnnSeq2SeqConfig::validate() const {
  if (source_vocab < 5 || target_vocab < 5) throw std::invalid_argument("vocabularies need more than the 4 specials");
  if (embedding_size < 1 || hidden_size < 1 || layers < 1)
    throw std::invalid_argument("embedding size, hidden size and layers must be at least 1");
  if (dropout < 0 || dropout >= 1) throw std::invalid_argument("dropout must be in [0, 1)");
  if (attention_size != 0 && score != AttentionScore::kAdditive) {  // the others have no layer of that width
    throw std::invalid_argument("an attention size is additive attention's width; " + to_string(score) +
                                " attention has none");
  }
  if ((score == AttentionScore::kDot || score == AttentionScore::kScaledDot) && encoder_output_size() != hidden_size) {
    throw std::invalid_argument(to_string(score) + " attention needs the encoder outputs (" +
                                std::to_string(encoder_output_size()) + ", bidirectional) and the decoder state (" +
                                std::to_string(hidden_size) +
                                ") of one size: a unidirectional encoder, or general or "
                                "additive attention");
  }
}

std::string RnnSeq2SeqConfig::summary() const {
  return fmt::format("{}, {}{} layer{}, E {}, H {}, {} attention ({})", cell == RnnCell::kGru ? "GRU" : "LSTM",
                     bidirectional ? "bidirectional, " : "", layers, layers == 1 ? "" : "s", embedding_size,
                     hidden_size, to_string(score), placement == AttentionPlacement::kBahdanau ? "Bahdanau" : "Luong");
}

EncoderRNNImpl::EncoderRNNImpl(const RnnSeq2SeqConfig& config) : config_(config) {
  config.validate();
  embedding = register_module("embedding", torch::nn::Embedding(config.source_vocab, config.embedding_size));
  const auto options = [&](auto o) {
    return o.num_layers(config.layers).batch_first(true).bidirectional(config.bidirectional);
  };
  if (config.cell == RnnCell::kGru) {
    gru = register_module("gru",
                          torch::nn::GRU(options(torch::nn::GRUOptions(config.embedding_size, config.hidden_size))));
  } else {
    lstm = register_module("lstm",
                           torch::nn::LSTM(options(torch::nn::LSTMOptions(config.embedding_size, config.hidden_size))));
  }
  if (config.bidirectional)
    bridge = register_module("bridge", torch::nn::Linear(2 * config.hidden_size, config.hidden_size));
  dropout = register_module("dropout", Dropout(config.dropout));
}

std::pair<torch::Tensor, RnnState> EncoderRNNImpl::forward(const torch::Tensor& source) {
  namespace rnn = torch::nn::utils::rnn;
  const auto S = source.size(1);
  // Packed by length, so that padding moves neither the outputs nor the final state.
  const auto lengths = source.ne(kPad).sum(1).clamp_min(1).to(torch::kCPU);
  const auto packed = rnn::pack_padded_sequence(dropout(embedding(source)), lengths, /*batch_first=*/true,
                                                /*enforce_sorted=*/false);
  RnnState state;
  torch::Tensor outputs;  // [B, S, He]
  if (gru) {
    auto [packed_out, h] = gru->forward_with_packed_input(packed);
    outputs = std::get<0>(rnn::pad_packed_sequence(packed_out, /*batch_first=*/true, 0.0, S));
    state.h = h;
  } else {
    auto [packed_out, hc] = lstm->forward_with_packed_input(packed);
    outputs = std::get<0>(rnn::pad_packed_sequence(packed_out, /*batch_first=*/true, 0.0, S));
    state.h = std::get<0>(hc);
    state.c = std::get<1>(hc);
  }
  if (config_.bidirectional) {
    // [layers * 2, B, H] -> [layers, B, 2H] -> tanh(bridge) [layers, B, H]; an LSTM decoder's cell starts at 0.
    const auto B = source.size(0);
    const auto joined = state.h.view({config_.layers, 2, B, config_.hidden_size})
                            .permute({0, 2, 1, 3})
                            .reshape({config_.layers, B, 2 * config_.hidden_size});
    state.h = torch::tanh(bridge(joined));
    if (state.c.defined()) state.c = torch::zeros_like(state.h);
  }
  return {outputs, state};
}

AttnDecoderRNNImpl::AttnDecoderRNNImpl(const RnnSeq2SeqConfig& config) : config_(config) {
  config.validate();
  const auto H = config.hidden_size, He = config.encoder_output_size();
  embedding = register_module("embedding", torch::nn::Embedding(config.target_vocab, config.embedding_size));
  attention = register_module("attention",
                              RnnAttention(config.score, H, He, config.attention_size > 0 ? config.attention_size : H));
  const bool luong = config.placement == AttentionPlacement::kLuong;
  const auto input = config.embedding_size + (luong ? H : He);
  if (config.cell == RnnCell::kGru) {
    gru = register_module("gru",
                          torch::nn::GRU(torch::nn::GRUOptions(input, H).num_layers(config.layers).batch_first(true)));
  } else {
    lstm = register_module(
        "lstm", torch::nn::LSTM(torch::nn::LSTMOptions(input, H).num_layers(config.layers).batch_first(true)));
  }
  if (luong) W_c = register_module("W_c", torch::nn::Linear(He + H, H));
  W_o = register_module("W_o", torch::nn::Linear(luong ? H : H + He, config.target_vocab));
  dropout = register_module("dropout", Dropout(config.dropout));
}

DecoderStep AttnDecoderRNNImpl::start(const RnnState& encoder_state, std::int64_t batch) const {
  DecoderStep carry;
  carry.state = encoder_state;
  if (config_.placement == AttentionPlacement::kLuong) {
    carry.feed = torch::zeros({batch, config_.hidden_size}, encoder_state.h.options());
  }
  return carry;
}

DecoderStep AttnDecoderRNNImpl::step(const torch::Tensor& previous, const DecoderStep& carry,
                                     const RnnEncodedSource& source, bool logits) {
  const auto e = dropout(embedding(previous));  // [B, E]
  DecoderStep next;
  next.state = carry.state;
  if (config_.placement == AttentionPlacement::kBahdanau) {
    // Attention before the step: the query is the previous state's top layer.
    auto [context, weights] = attention(carry.state.h[-1], source.outputs, source.prepared, source.padding);
    const auto s = run_rnn(gru, lstm, torch::cat({e, context}, -1).unsqueeze(1), next.state).squeeze(1);  // [B, H]
    next.features = dropout(torch::cat({s, context}, -1));
    next.weights = weights;
  } else {
    // Attention after it, the previous attentional vector fed in with the word.
    const auto s = run_rnn(gru, lstm, torch::cat({e, carry.feed}, -1).unsqueeze(1), next.state).squeeze(1);
    auto [context, weights] = attention(s, source.outputs, source.prepared, source.padding);
    next.feed = torch::tanh(W_c(torch::cat({context, s}, -1)));  // h~_t [B, H]
    next.features = dropout(next.feed);
    next.weights = weights;
  }
  if (logits) next.logits = W_o(next.features);
  return next;
}

RnnSeq2SeqImpl::RnnSeq2SeqImpl(RnnSeq2SeqConfig config) : config_(std::move(config)) {
  config_.validate();
  encoder = register_module("encoder", EncoderRNN(config_));
  decoder = register_module("decoder", AttnDecoderRNN(config_));
}

RnnEncodedSource RnnSeq2SeqImpl::encode(const torch::Tensor& source, RnnState* state) {
  auto [outputs, encoder_state] = encoder(source);
  *state = encoder_state;
  return {outputs, decoder->attention->prepare_keys(outputs), source.eq(kPad)};
}

torch::Tensor RnnSeq2SeqImpl::forward(const torch::Tensor& source, const torch::Tensor& target_in,
                                      double teacher_forcing) {
  return run(source, target_in, teacher_forcing, nullptr);
}

torch::Tensor RnnSeq2SeqImpl::forward_with_attention(const torch::Tensor& source, const torch::Tensor& target_in,
                                                     torch::Tensor* weights) {
  return run(source, target_in, 1.0, weights);
}

torch::Tensor RnnSeq2SeqImpl::output_features(const torch::Tensor& source, const torch::Tensor& target_in) {
  return run(source, target_in, 1.0, nullptr, /*features_only=*/true);
}

torch::Tensor RnnSeq2SeqImpl::run(const torch::Tensor& source, const torch::Tensor& target_in, double teacher_forcing,
                                  torch::Tensor* weights, bool features_only) {
  RnnState state;
  const auto encoded = encode(source, &state);
  auto carry = decoder->start(state, source.size(0));
  auto previous = target_in.select(1, 0);
  std::vector<torch::Tensor> logits, attention;
  const auto T = target_in.size(1);
  for (std::int64_t t = 0; t < T; ++t) {
    carry = decoder->step(previous, carry, encoded, !features_only);
    logits.push_back(features_only ? carry.features : carry.logits);
    if (weights != nullptr) attention.push_back(carry.weights);
    if (t + 1 == T) break;
    const bool gold = teacher_forcing >= 1.0 || (teacher_forcing > 0 && draw_uniform() < teacher_forcing);
    previous = gold ? target_in.select(1, t + 1) : carry.logits.argmax(-1).detach();
  }
  if (weights != nullptr) *weights = torch::stack(attention, 1);  // [B, T, S]
  return torch::stack(logits, 1);                                 // [B, T, V] or [B, T, F]
}

std::pair<torch::Tensor, torch::Tensor> RnnSeq2SeqImpl::greedy(const torch::Tensor& source, std::int64_t max_len) {
  RnnState state;
  const auto encoded = encode(source, &state);
  const auto B = source.size(0);
  auto carry = decoder->start(state, B);
  auto previous = torch::full({B}, kSos, source.options());
  auto finished = torch::zeros({B}, source.options().dtype(torch::kBool));
  std::vector<torch::Tensor> tokens, weights;
  for (std::int64_t t = 0; t < max_len && !finished.all().item<bool>(); ++t) {
    carry = decoder->step(previous, carry, encoded);
    auto next = carry.logits.argmax(-1).masked_fill(finished, kPad);  // rows that ended write <pad>
    tokens.push_back(next);
    weights.push_back(carry.weights);
    finished = finished.logical_or(next.eq(kEos));
    previous = next;
  }
  if (tokens.empty()) return {torch::empty({B, 0}, source.options()), torch::empty({B, 0, source.size(1)})};
  return {torch::stack(tokens, 1), torch::stack(weights, 1)};
}

}  // namespace dls

// Decoding an RNN encoder-decoder through the decoding session every method shares
// (models/rnn_decoder_session.h): greedy decoding equals the model's own greedy loop, a batch
// decodes as its rows alone, beam search of width 1 is greedy, n-best's first is beam's
// output, and an ensemble of one is the model.
#include "dls/models/rnn_decoder_session.h"

#include <gtest/gtest.h>

#include <torch/torch.h>

#include "dls/eval/decoding.h"
#include "dls/models/translation_model.h"
#include "support/decoding_fixture.h"
#include "support/beam_coverage.h"

namespace dls::rnn_decoding_test {
namespace {

constexpr std::int64_t kSos = 0, kEos = 1, kPad = 2;

RnnSeq2Seq untrained_model(AttentionPlacement placement, RnnCell cell) {
  RnnSeq2SeqConfig config;
  config.source_vocab = config.target_vocab = 12;
  config.embedding_size = 8;
  config.hidden_size = 16;
  config.cell = cell;
  config.placement = placement;
  config.score = placement == AttentionPlacement::kBahdanau ? AttentionScore::kAdditive : AttentionScore::kGeneral;
  config.max_seq_length = 7;
  config.dropout = 0.0;
  RnnSeq2Seq model(config);
  model->eval();
  return model;
}

// Three sources [3, 6] of different lengths: SOS, symbols, EOS, <pad>.
torch::Tensor sources() {
  const std::vector<std::int64_t> ids{kSos, 4,    5,    6,    7, kEos, kSos, 8,    kEos,
                                      kPad, kPad, kPad, kSos, 9, 10,   kEos, kPad, kPad};
  return torch::tensor(ids, torch::kInt64).view({3, 6});
}

// The words of the model's own greedy tokens [B, T] up to the first EOS.
std::vector<eval::TokenIds> until_eos(const torch::Tensor& tokens) {
  std::vector<eval::TokenIds> rows;
  for (std::int64_t b = 0; b < tokens.size(0); ++b) {
    eval::TokenIds words;
    for (std::int64_t t = 0; t < tokens.size(1) && tokens[b][t].item<std::int64_t>() != kEos; ++t) {
      words.push_back(tokens[b][t].item<std::int64_t>());
    }
    rows.push_back(words);
  }
  return rows;
}

TEST(RnnDecoding, GreedyThroughTheSessionIsTheModelsOwnGreedyLoop) {
  torch::manual_seed(11);
  for (const auto placement : {AttentionPlacement::kBahdanau, AttentionPlacement::kLuong}) {
    for (const auto cell : {RnnCell::kGru, RnnCell::kLstm}) {
      auto model = untrained_model(placement, cell);
      const auto src = sources();
      torch::NoGradGuard no_grad;
      // 7 positions: SOS and at most 6 words.
      const auto expected = until_eos(model->greedy(src, 6).first);
      const auto decoded = eval::translate(model, src, kSos, kEos);
      EXPECT_EQ(decoded, expected) << to_string(placement) << " " << to_string(cell);
      for (std::int64_t b = 0; b < src.size(0); ++b) {  // each row alone, the same words
        EXPECT_EQ(eval::translate(model, src.narrow(0, b, 1), kSos, kEos).front(), expected[b]) << b;
      }
    }
  }
}

TEST(RnnDecoding, BeamOfOneIsGreedyAndNBestsFirstIsBeamsOutput) {
  torch::manual_seed(12);
  auto model = untrained_model(AttentionPlacement::kBahdanau, RnnCell::kGru);
  const auto src = sources();
  auto beam = testing::beam_options(1);
  EXPECT_EQ(eval::translate(model, src, kSos, kEos, beam), eval::translate(model, src, kSos, kEos));

  beam.beam_size = 4;
  const auto best = eval::translate(model, src, kSos, kEos, beam);
  beam.n_best = 3;
  const auto lists = eval::translate_n_best({model}, src, kSos, kEos, beam);
  ASSERT_EQ(lists.size(), best.size());
  for (std::size_t b = 0; b < lists.size(); ++b) {
    ASSERT_EQ(lists[b].size(), 3u) << b;
    EXPECT_EQ(lists[b].front().words, best[b]) << b;
    EXPECT_GE(lists[b][0].log_probability, lists[b][1].log_probability) << b;
  }
}

// The coverage penalty reads an RNN's one attention: the beams ranked by score + beta * coverage.
TEST(RnnDecoding, ACoveragePenaltyRanksTheBeamsWithTheRnnsAttention) {
  torch::manual_seed(13);
  auto model = untrained_model(AttentionPlacement::kLuong, RnnCell::kLstm);
  const auto src = sources();
  auto beam = testing::beam_options(4);
  beam.n_best = 4;
  beam.coverage_penalty = 1.5;
  const auto lists = eval::translate_n_best({model}, src, kSos, kEos, beam);
  const std::int64_t capacity = model->config().max_seq_length;
  for (std::size_t b = 0; b < lists.size(); ++b) {
    double previous = INFINITY;
    for (const auto& h : lists[b]) {
      const double key = h.log_probability + 1.5 * test::coverage_of(model, src[static_cast<std::int64_t>(b)], h.words,
                                                                     capacity, kSos, kEos, kPad);
      EXPECT_LE(key, previous + 1e-4) << b;
      previous = key;
    }
  }
}

TEST(RnnDecoding, AnEnsembleOfOneIsTheModelAndTwoAverageTheirLogProbabilities) {
  torch::manual_seed(13);
  auto model = untrained_model(AttentionPlacement::kLuong, RnnCell::kGru);
  auto other = untrained_model(AttentionPlacement::kLuong, RnnCell::kGru);
  const auto src = sources();
  eval::DecodeOptions greedy;
  greedy.scores = true;
  const auto alone = eval::translate_n_best({model}, src, kSos, kEos, greedy);
  const auto same = eval::translate_n_best({model, model}, src, kSos, kEos, greedy);
  for (std::size_t b = 0; b < alone.size(); ++b) {
    EXPECT_EQ(same[b].front().words, alone[b].front().words) << b;
    EXPECT_NEAR(same[b].front().log_probability, alone[b].front().log_probability, 1e-4) << b;
  }
  // Two different models: each step's choice is the argmax of the mean log-probabilities.
  torch::NoGradGuard no_grad;
  const auto pair = eval::translate_n_best({model, other}, src.narrow(0, 0, 1), kSos, kEos, greedy).front().front();
  RnnDecoderSession a(model, src.narrow(0, 0, 1), kSos), b(other, src.narrow(0, 0, 1), kSos);
  eval::TokenIds words;
  while (a.length() < a.max_length()) {
    const auto word = ((a.step() + b.step()) / 2).argmax(-1);
    a.append(word);
    b.append(word);
    if (word.item<std::int64_t>() == kEos) break;
    words.push_back(word.item<std::int64_t>());
  }
  EXPECT_EQ(pair.words, words);
}

TEST(RnnDecoding, TheSessionCarriesTheAttentionOfItsLatestStep) {
  torch::manual_seed(14);
  auto model = untrained_model(AttentionPlacement::kBahdanau, RnnCell::kGru);
  torch::NoGradGuard no_grad;
  RnnDecoderSession session(model, sources(), kSos);
  EXPECT_EQ(session.max_length(), 7) << "the config's L";
  session.step();
  const auto weights = session.latest_attention();  // [3, 6]
  ASSERT_EQ(weights.sizes(), (std::vector<std::int64_t>{3, 6}));
  EXPECT_EQ(weights[1].narrow(0, 3, 3).abs().max().item<float>(), 0.0f) << "no weight on padding";
  EXPECT_TRUE(torch::allclose(weights.sum(-1), torch::ones({3}), 1e-5, 1e-5));
  // Rows reordered: the carry follows them.
  session.select_rows(torch::tensor({2, 0}, torch::kInt64));
  EXPECT_TRUE(torch::equal(session.latest_attention()[1], weights[0]));
  EXPECT_EQ(session.rows(), 2);
}

}  // namespace
}  // namespace dls::rnn_decoding_test

// Decoding's fast paths equal the plain algorithms: greedy decoding through a
// DecoderSession (cached keys and values, or the dlstudio layout's prefix steps) picks the
// same words as re-running the whole model on the growing prefix; a beam of one is greedy;
// DLStudio's one-shot decoding reads every position of one forward pass.
#include "dls/eval/decoding.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <set>

#include <torch/torch.h>

#include "dls/layers/row_linear.h"
#include "dls/models/decoder_session.h"
#include "support/decoding_fixture.h"
#include "support/small_models.h"

namespace dls::eval {
namespace {

using testing::VariantLayout;

constexpr std::int64_t kSos = 0, kEos = 1, kPad = 2;

// The textbook loop: run the full model on the prefix decoded so far (later positions
// hold padding, which the causal masking hides) and take the argmax at the last position.
std::vector<TokenIds> plain_greedy(Seq2SeqTransformer& model, const torch::Tensor& src) {
  torch::NoGradGuard no_grad;
  const auto B = src.size(0), L = src.size(1);
  auto tgt = torch::full({B, L}, kPad, torch::kLong);
  tgt.select(1, 0).fill_(kSos);
  std::vector<TokenIds> out(static_cast<std::size_t>(B));
  std::vector<bool> done(static_cast<std::size_t>(B), false);
  for (std::int64_t k = 0; k + 1 < L; ++k) {
    const auto next = model->forward(src, tgt).select(1, k).argmax(-1);  // [B]
    for (std::int64_t b = 0; b < B; ++b) {
      const auto word = next[b].item<std::int64_t>();
      tgt[b][k + 1] = word;
      if (done[static_cast<std::size_t>(b)]) continue;
      if (word == kEos) {
        done[static_cast<std::size_t>(b)] = true;
      } else {
        out[static_cast<std::size_t>(b)].push_back(word);
      }
    }
  }
  return out;
}

class Decoding : public testing::UntrainedSmallModel<7, 6> {};

TEST_P(Decoding, GreedyEqualsRerunningTheModelOnThePrefix) {
  const auto fast = decode_batch(model_, src_, kSos, kEos);
  EXPECT_EQ(fast, plain_greedy(model_, src_));
  // Not a degenerate case: the random model emits words before stopping.
  std::size_t words = 0;
  for (const auto& t : fast) words += t.size();
  EXPECT_GT(words, 0u);
}

// One sentence at a time, every linear layer of a step gets one row and takes the GEMV path
// (row_linear.h): the words are still those of the whole model on the prefix, and a step's
// logits those of the plain GEMM to float rounding.
TEST_P(Decoding, OneSentenceAtATimeTakesTheOneRowPathToTheSameWords) {
  ASSERT_TRUE(row_gemv_enabled());
  for (std::int64_t b = 0; b < src_.size(0); ++b) {
    const auto one = src_.narrow(0, b, 1);
    EXPECT_EQ(decode_batch(model_, one, kSos, kEos), plain_greedy(model_, one)) << "sentence " << b;
  }
  torch::NoGradGuard no_grad;
  const auto one = src_.narrow(0, 0, 1);
  DecoderSession gemv(model_, one, kSos);
  const auto fast = gemv.step(/*log_probabilities=*/false);
  set_row_gemv_enabled(false);
  DecoderSession gemm(model_, one, kSos);
  const auto plain = gemm.step(/*log_probabilities=*/false);
  set_row_gemv_enabled(true);
  EXPECT_TRUE(torch::allclose(fast, plain, 1e-4, 1e-5)) << (fast - plain).abs().max().item<double>();
}

// The sums of log-probabilities that greedy decoding and beam search return are those of a
// teacher-forced pass over the same words (and the EOS after them, when it was written):
// Translator reports them as each translation's score instead of running that pass.
TEST_P(Decoding, DecodedScoresEqualATeacherForcedPass) {
  torch::NoGradGuard no_grad;
  const auto L = src_.size(1);
  for (const auto method : {DecodeMethod::kGreedy, DecodeMethod::kBeam}) {
    DecodeOptions options;
    options.method = method;
    options.beam_size = 3;
    options.scores = true;
    const auto hypotheses = translate_n_best({model_}, src_, kSos, kEos, options);
    for (std::int64_t b = 0; b < src_.size(0); ++b) {
      const auto& best = hypotheses[static_cast<std::size_t>(b)].front();
      auto tgt = torch::full({1, L}, kPad, torch::kLong);
      tgt[0][0] = kSos;
      std::int64_t position = 1;
      for (const auto word : best.words) tgt[0][position++] = word;
      if (position < L) tgt[0][position++] = kEos;  // written when it fitted
      model_->eval();
      const auto log_probs = model_->forward(src_.narrow(0, b, 1), tgt)[0];  // [L-1, V]
      double expected = 0;
      for (std::int64_t k = 1; k < position; ++k)
        expected += log_probs[k - 1][tgt[0][k].item<std::int64_t>()].item<double>();
      EXPECT_NEAR(best.log_probability, expected, 1e-4) << to_string(method) << " sentence " << b;
    }
  }
}

// Finished sentences leave the session, so that later steps compute only the others: with
// the EOS bias raised until sentences end at three or more different steps, each still gets
// the words of the plain loop, which runs every sentence to the end.
TEST_P(Decoding, FinishedSentencesLeaveWithoutChangingTheOthers) {
  const auto src = testing::source_rows(16, 6, 23);
  auto bias = model_->master_decoder->out->bias;
  const double eos_bias = bias[kEos].item<double>();
  std::vector<TokenIds> fast;
  std::set<std::size_t> lengths;
  for (double boost = 0.0; boost <= 8.0 && lengths.size() < 3; boost += 0.02) {
    {
      torch::NoGradGuard no_grad;
      bias[kEos].fill_(eos_bias + boost);
    }
    fast = decode_batch(model_, src, kSos, kEos);
    lengths.clear();
    for (const auto& words : fast) lengths.insert(words.size());
  }
  ASSERT_GE(lengths.size(), 3u) << "no EOS bias made sentences end at three different steps";
  EXPECT_EQ(fast, plain_greedy(model_, src));
}

// Greedy decoding takes the argmax of the logits (no log_softmax over the vocabulary): a
// session's logits normalise to the log-probabilities it gives otherwise, at every step.
TEST_P(Decoding, SessionLogitsNormaliseToItsLogProbabilities) {
  torch::NoGradGuard no_grad;
  DecoderSession with_logits(model_, src_, kSos), with_log_probs(model_, src_, kSos);
  while (with_logits.length() < with_logits.max_length()) {
    const auto logits = with_logits.step(/*log_probabilities=*/false);
    const auto log_probs = with_log_probs.step();
    EXPECT_TRUE(torch::allclose(torch::log_softmax(logits, -1), log_probs, 1e-5, 1e-6));
    const auto words = logits.argmax(-1);
    EXPECT_TRUE(torch::equal(words, log_probs.argmax(-1)));
    with_logits.append(words);
    with_log_probs.append(words);
  }
}

// A beam of one is greedy, but for the empty translation: beam search never ends a
// hypothesis before its first word (an untrained model's EOS first made wide beams return
// empty lines), so where greedy stops at once the beam takes the best real word.
TEST_P(Decoding, BeamOfOneIsGreedyButNeverEmpty) {
  auto beam = testing::beam_options(1);
  const auto greedy = decode_batch(model_, src_, kSos, kEos);
  const auto beamed = decode_batch(model_, src_, kSos, kEos, beam);
  ASSERT_EQ(beamed.size(), greedy.size());
  for (std::size_t i = 0; i < greedy.size(); ++i) {
    EXPECT_FALSE(beamed[i].empty()) << "sentence " << i;
    if (!greedy[i].empty()) {
      EXPECT_EQ(beamed[i], greedy[i]) << "sentence " << i;
    }
  }
  // A model whose first choice is always EOS (its output bias for EOS raised): greedy is
  // empty, no beam is.
  {
    torch::NoGradGuard no_grad;
    for (auto& p : model_->named_parameters()) {
      if (p.key().size() >= 8 && p.key().substr(p.key().size() - 8) == "out.bias") p.value()[kEos].add_(50.0);
    }
  }
  for (const auto& t : decode_batch(model_, src_, kSos, kEos)) EXPECT_TRUE(t.empty()) << "EOS first for greedy";
  for (const std::int64_t width : {1, 4, 16}) {
    for (const auto& t : decode_batch(model_, src_, kSos, kEos, testing::beam_options(width))) {
      EXPECT_FALSE(t.empty()) << "beam " << width;
    }
  }
}

TEST_P(Decoding, BeamAsWideAsTheVocabularyIsExhaustiveForTwoWords) {
  // With L = 3 a translation has two predicted positions. A beam keeping all V first words
  // then picks the best of all V x V continuations: the most likely translation, which the
  // brute force below finds by scoring every first word with the plain model.
  torch::manual_seed(11);
  auto config = testing::small_config(GetParam().variant, GetParam().layout);
  config.transformer().max_seq_length(3);
  Seq2SeqTransformer model(config);
  model->eval();
  const std::int64_t V = model->config().tgt_vocab_size();
  const auto src = torch::tensor({kSos, std::int64_t{5}, kEos}, torch::kLong).unsqueeze(0);  // [1, 3]
  torch::NoGradGuard no_grad;
  auto tgt = torch::full({V, 3}, kPad, torch::kLong);  // row w: SOS w <pad>
  tgt.select(1, 0).fill_(kSos);
  tgt.select(1, 1).copy_(torch::arange(V));
  const auto lp = model->forward(src.expand({V, 3}), tgt);  // [V, 2, V]
  const auto first = lp[0][0];                              // position 1, the same in every row
  double best = -INFINITY;                                  // EOS first, the empty translation, is no hypothesis
  for (std::int64_t w = 0; w < V; ++w) {
    if (w == kEos) continue;
    best = std::max(best, first[w].item<double>() + lp[w][1].max().item<double>());
  }
  auto beam = testing::beam_options(V);
  const auto found = decode_batch(model, src, kSos, kEos, beam).front();
  ASSERT_GE(found.size(), 1u);
  ASSERT_LE(found.size(), 2u);
  const double score =
      first[found[0]].item<double>() + lp[found[0]][1][found.size() == 2 ? found[1] : kEos].item<double>();
  EXPECT_NEAR(score, best, 1e-5);
}

// DecodeOptions::cancelled is asked before every step (and on every chunk's thread): the
// decoding stops where it first says true, with DecodingCancelled, and leaves the model in
// the mode it had; while it says false, the translations are the same.
TEST_P(Decoding, ACancelledDecodingStopsAtItsNextStep) {
  const bool was_training = model_->is_training();
  for (const auto method : {DecodeMethod::kGreedy, DecodeMethod::kBeam, DecodeMethod::kSample}) {
    DecodeOptions options;
    options.method = method;
    options.beam_size = 2;
    const auto plain = decode_batch(model_, src_, kSos, kEos, options);
    std::atomic<int> asked{0};
    options.cancelled = [&] { return ++asked < 0; };
    EXPECT_EQ(decode_batch(model_, src_, kSos, kEos, options), plain) << to_string(method);
    EXPECT_GE(asked.load(), 3) << to_string(method) << ": the chunk and at least two steps";
    asked = 0;
    options.cancelled = [&] { return ++asked >= 2; };  // the chunk goes on; its first step in the loop stops
    model_->train();
    EXPECT_THROW(decode_batch(model_, src_, kSos, kEos, options), DecodingCancelled) << to_string(method);
    EXPECT_EQ(asked.load(), 2) << to_string(method);
    EXPECT_TRUE(model_->is_training()) << to_string(method);
    asked = 0;
    options.workers = 3;  // each chunk's thread asks; the first to stop is rethrown
    EXPECT_THROW(decode_batch(model_, src_, kSos, kEos, options), DecodingCancelled) << to_string(method);
  }
  model_->train(was_training);
}

// The fast path: sentences decoded in concurrent chunks give the plain loop's translations,
// for every method, with even and uneven chunks and more workers than sentences.
TEST_P(Decoding, ChunksOnThreadsEqualThePlainLoop) {
  const auto src = testing::source_rows(13, 6, 23);
  for (const auto method : {DecodeMethod::kGreedy, DecodeMethod::kBeam, DecodeMethod::kDLStudioOneShot}) {
    DecodeOptions options;
    options.method = method;
    options.beam_size = 3;
    const auto plain = decode_batch(model_, src, kSos, kEos, options);
    for (const int workers : {2, 3, 20}) {
      options.workers = workers;
      EXPECT_EQ(decode_batch(model_, src, kSos, kEos, options), plain)
          << to_string(method) << " with " << workers << " workers";
    }
  }
}

TEST_P(Decoding, OneShotReadsEveryPositionOfOnePass) {
  torch::NoGradGuard no_grad;
  auto tgt = torch::full({src_.size(0), src_.size(1)}, kEos, torch::kLong);
  tgt.select(1, 0).fill_(kSos);
  const auto words = model_->forward(src_, tgt).argmax(-1);  // [B, L-1]
  DecodeOptions oneshot;
  oneshot.method = DecodeMethod::kDLStudioOneShot;
  const auto decoded = decode_batch(model_, src_, kSos, kEos, oneshot);
  for (std::int64_t b = 0; b < src_.size(0); ++b) {
    TokenIds expected;
    for (std::int64_t k = 0; k < words.size(1) && words[b][k].item<std::int64_t>() != kEos; ++k) {
      expected.push_back(words[b][k].item<std::int64_t>());
    }
    EXPECT_EQ(decoded[static_cast<std::size_t>(b)], expected) << "sentence " << b;
  }
}

// A model with DLStudio's outputs never emits <pad> or <unk>, by any method, even when
// their output scores are the highest by far: it decodes as the same weights do with those
// two scores pushed to -1e4 (what importing DLStudio's files did before).
TEST_P(Decoding, DLStudioOutputsNeverEmitPadOrUnk) {
  const auto config = testing::small_config(GetParam().variant, GetParam().layout);
  torch::manual_seed(7);
  Seq2SeqTransformer words_only(Seq2SeqConfig(config).dlstudio_outputs(true));
  torch::manual_seed(7);
  Seq2SeqTransformer pushed_down(config);  // the same weights
  {
    torch::NoGradGuard no_grad;
    words_only->master_decoder->out->bias.narrow(0, kPad, 2).fill_(100.0);
    pushed_down->master_decoder->out->bias.narrow(0, kPad, 2).fill_(-1e4);
  }
  for (const auto method : {DecodeMethod::kGreedy, DecodeMethod::kBeam, DecodeMethod::kDLStudioOneShot}) {
    SCOPED_TRACE(static_cast<int>(method));
    DecodeOptions options;
    options.method = method;
    const auto decoded = decode_batch(words_only, src_, kSos, kEos, options);
    for (const auto& sentence : decoded) {
      for (const auto id : sentence) EXPECT_TRUE(id != kPad && id != kPad + 1) << "chose " << id;
    }
    EXPECT_EQ(decoded, decode_batch(pushed_down, src_, kSos, kEos, options));
  }
}

// A source longer than L with more positions to decode (DecodeOptions::max_length): the
// layouts with per-position weights decode it (vaswani: as the plain loop over the longer
// target); the dlstudio layout, whose weights span L, refuses.
TEST_P(Decoding, ALongerSourceDecodesPastLOutsideTheDLStudioLayout) {
  const auto src = testing::source_rows(4, 12, 23);  // L = 6
  DecodeOptions options;
  options.max_length = 12;
  if (GetParam().layout == Layout::kDLStudio) {
    EXPECT_THROW(decode_batch(model_, src, kSos, kEos, options), c10::Error);
    return;
  }
  for (const auto method : {DecodeMethod::kGreedy, DecodeMethod::kBeam, DecodeMethod::kDLStudioOneShot}) {
    options.method = method;
    const auto decoded = decode_batch(model_, src, kSos, kEos, options);
    ASSERT_EQ(decoded.size(), 4u);
    for (const auto& sentence : decoded) EXPECT_LE(sentence.size(), 11u);
  }
  if (GetParam().layout == Layout::kVaswani) {
    options.method = DecodeMethod::kGreedy;
    EXPECT_EQ(decode_batch(model_, src, kSos, kEos, options), plain_greedy(model_, src));
  }
}

INSTANTIATE_TEST_SUITE_P(All, Decoding, ::testing::ValuesIn(testing::kAllVariantLayouts), testing::name_of);

}  // namespace
}  // namespace dls::eval

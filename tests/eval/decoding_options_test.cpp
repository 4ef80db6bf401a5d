// The decoding options translators expect, each against the plain decoding it extends:
// beam search's n best start with its one best and are ordered by score; an ensemble of one
// model, or of two copies of it, decodes as the model does; sampling is a function of the
// seed and each sentence alone (not of the batch or the workers), tends to greedy as its
// temperature or top-k shrinks, and different seeds give different samples; a coverage
// penalty ranks the beams by score plus beta times their coverage, recomputed here.
#include <gtest/gtest.h>

#include <torch/torch.h>

#include "dls/eval/decoding.h"
#include "support/beam_coverage.h"
#include "support/decoding_fixture.h"
#include "support/small_models.h"

namespace dls::eval::decoding_options_test {
namespace {

constexpr std::int64_t kSos = 0, kEos = 1, kPad = 2;

std::vector<TokenIds> best_words(const std::vector<std::vector<Hypothesis>>& n_best) {
  std::vector<TokenIds> words;
  for (const auto& hypotheses : n_best) words.push_back(hypotheses.front().words);
  return words;
}

class DecodingOptions : public testing::UntrainedSmallModel<11, 8> {};

TEST_P(DecodingOptions, NBestStartsWithTheBeamsBestAndIsOrderedByScore) {
  auto beam = testing::beam_options(4);
  const auto one_best = decode_batch(model_, src_, kSos, kEos, beam);
  beam.n_best = 3;
  const auto n_best = translate_n_best({model_}, src_, kSos, kEos, beam);
  ASSERT_EQ(n_best.size(), one_best.size());
  for (std::size_t i = 0; i < n_best.size(); ++i) {
    SCOPED_TRACE("sentence " + std::to_string(i));
    ASSERT_EQ(n_best[i].size(), 3u);
    EXPECT_EQ(n_best[i].front().words, one_best[i]);
    for (std::size_t k = 1; k < n_best[i].size(); ++k) {
      EXPECT_LE(n_best[i][k].log_probability, n_best[i][k - 1].log_probability);
      EXPECT_NE(n_best[i][k].words, n_best[i][k - 1].words) << "the n best are different translations";
    }
  }
  beam.n_best = 9;  // more than the beam holds: the beam's K
  EXPECT_EQ(translate_n_best({model_}, src_, kSos, kEos, beam).front().size(), 4u);
}

TEST_P(DecodingOptions, ACoveragePenaltyRanksTheBeamsByScorePlusBetaTimesCoverage) {
  auto beam = testing::beam_options(4);
  beam.n_best = 4;
  beam.coverage_penalty = 2.0;
  const auto ranked = translate_n_best({model_}, src_, kSos, kEos, beam);
  for (std::size_t b = 0; b < ranked.size(); ++b) {
    SCOPED_TRACE("sentence " + std::to_string(b));
    ASSERT_GE(ranked[b].size(), 2u);
    double previous = INFINITY;
    for (const auto& h : ranked[b]) {
      const double coverage = test::coverage_of(model_, src_[static_cast<std::int64_t>(b)], h.words,
                                                model_->config().transformer().max_seq_length(), kSos, kEos, kPad);
      const double key = h.log_probability + 2.0 * coverage;
      EXPECT_LE(key, previous + 1e-4);
      previous = key;
    }
  }
}

TEST_P(DecodingOptions, AnEnsembleOfOneOrOfTwoCopiesDecodesAsTheModel) {
  for (const auto method : {DecodeMethod::kGreedy, DecodeMethod::kBeam, DecodeMethod::kDLStudioOneShot}) {
    SCOPED_TRACE(to_string(method));
    DecodeOptions options;
    options.method = method;
    const auto alone = decode_batch(model_, src_, kSos, kEos, options);
    EXPECT_EQ(best_words(translate_n_best({model_}, src_, kSos, kEos, options)), alone);
    EXPECT_EQ(best_words(translate_n_best({model_, model_}, src_, kSos, kEos, options)), alone)
        << "the mean of two equal log-probabilities is theirs";
  }
}

TEST_P(DecodingOptions, AnEnsembleOfTwoModelsFollowsTheirMeanLogProbabilities) {
  torch::manual_seed(12);
  Seq2SeqTransformer other(testing::small_config(GetParam().variant, GetParam().layout));
  other->eval();
  // The first word by hand: argmax of the two models' mean log-probabilities after SOS.
  torch::NoGradGuard no_grad;
  auto tgt = torch::full({src_.size(0), src_.size(1)}, kPad, torch::kLong);
  tgt.select(1, 0).fill_(kSos);
  const auto mean = (model_->forward(src_, tgt) + other->forward(src_, tgt)).select(1, 0) / 2;  // [B, V]
  const auto first = mean.argmax(-1);
  const auto decoded = best_words(translate_n_best({model_, other}, src_, kSos, kEos, {}));
  for (std::int64_t b = 0; b < src_.size(0); ++b) {
    const auto word = first[b].item<std::int64_t>();
    if (word == kEos) {
      EXPECT_TRUE(decoded[static_cast<std::size_t>(b)].empty());
    } else {
      ASSERT_FALSE(decoded[static_cast<std::size_t>(b)].empty());
      EXPECT_EQ(decoded[static_cast<std::size_t>(b)].front(), word) << "sentence " << b;
    }
  }
}

TEST_P(DecodingOptions, SamplesDependOnTheSeedAndTheSentenceNotOnTheBatch) {
  DecodeOptions sample;
  sample.method = DecodeMethod::kSample;
  sample.sampling.seed = 5;
  const auto drawn = best_words(translate_n_best({model_}, src_, kSos, kEos, sample));
  EXPECT_EQ(best_words(translate_n_best({model_}, src_, kSos, kEos, sample)), drawn)
      << "the same seed, the same samples";
  auto one_at_a_time = sample;
  one_at_a_time.batch_size = 1;
  EXPECT_EQ(best_words(translate_n_best({model_}, src_, kSos, kEos, one_at_a_time)), drawn);
  auto two_workers = sample;
  two_workers.workers = 2;
  EXPECT_EQ(best_words(translate_n_best({model_}, src_, kSos, kEos, two_workers)), drawn);

  // Another seed: other samples (an untrained model's distribution is nearly flat).
  int differing = 0;
  for (std::uint64_t seed = 6; seed < 10; ++seed) {
    auto other = sample;
    other.sampling.seed = seed;
    differing += best_words(translate_n_best({model_}, src_, kSos, kEos, other)) != drawn;
  }
  EXPECT_GE(differing, 3);
}

TEST_P(DecodingOptions, SamplingWithoutChoiceIsGreedy) {
  const auto greedy = decode_batch(model_, src_, kSos, kEos, {});
  DecodeOptions sample;
  sample.method = DecodeMethod::kSample;
  sample.sampling.temperature = 0;  // the most probable word
  EXPECT_EQ(best_words(translate_n_best({model_}, src_, kSos, kEos, sample)), greedy);
  sample.sampling.temperature = 1;
  sample.sampling.top_k = 1;  // only the most probable word may be drawn
  EXPECT_EQ(best_words(translate_n_best({model_}, src_, kSos, kEos, sample)), greedy);
  sample.sampling.top_k = 0;
  sample.sampling.top_p = 1e-9;  // the nucleus is the most probable word
  EXPECT_EQ(best_words(translate_n_best({model_}, src_, kSos, kEos, sample)), greedy);
}

INSTANTIATE_TEST_SUITE_P(All, DecodingOptions, ::testing::ValuesIn(testing::kAllVariantLayouts), testing::name_of);

}  // namespace
}  // namespace dls::eval::decoding_options_test

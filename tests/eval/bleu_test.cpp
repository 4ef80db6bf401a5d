// BLEU against NLTK 3.8's documented values, edge cases, a plain re-count of the n-grams,
// the brevity penalty, and speed. Random agreement with NLTK is in bleu_nltk_test.cpp.
#include "dls/eval/bleu.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <random>
#include <stdexcept>

namespace dls::eval {
namespace {

// The sentences of NLTK's sentence_bleu / corpus_bleu docstrings.
const Tokens kHyp1 = split_whitespace(
    "It is a guide to action which ensures that the military always obeys the commands of the "
    "party");
const Tokens kHyp2 =
    split_whitespace("It is to insure the troops forever hearing the activity guidebook that party direct");
const Tokens kRef1 =
    split_whitespace("It is a guide to action that ensures that the military will forever heed Party commands");
const Tokens kRef2 = split_whitespace(
    "It is the guiding principle which guarantees the military forces always being under the "
    "command of the Party");
const Tokens kRef3 =
    split_whitespace("It is the practical guide for the army always to heed the directions of the party");
const Tokens kHyp2b = split_whitespace("he read the book because he was interested in world history");
const Tokens kRef2a = split_whitespace("he was interested in world history because he read the book");

BleuOptions with_smoothing(Smoothing smoothing) {
  BleuOptions options;
  options.smoothing = smoothing;
  return options;
}

BleuOptions with_weights(std::vector<double> weights) {
  BleuOptions options;
  options.weights = std::move(weights);
  return options;
}

// Relative comparison, for values far below 1 (method0 gives ~1e-155 without matches).
void expect_relative(double actual, double expected, double tolerance) {
  EXPECT_LE(std::fabs(actual - expected), tolerance * std::fabs(expected))
      << "actual " << actual << " expected " << expected;
}

TEST(Bleu, NltkSentenceBleuDocstring) {
  const BleuScore score = sentence_bleu({kRef1, kRef2, kRef3}, kHyp1);
  EXPECT_NEAR(score.bleu, 0.5045666840058485, 1e-12);
  EXPECT_EQ(score.hyp_len, 18u);
  EXPECT_EQ(score.ref_len, 18u);
  EXPECT_EQ(score.bp, 1.0);
  // BLEU-5 from the same docstring.
  EXPECT_NEAR(sentence_bleu({kRef1, kRef2, kRef3}, kHyp1, with_weights({0.2, 0.2, 0.2, 0.2, 0.2})).bleu,
              0.39202634084155785, 1e-12);
}

TEST(Bleu, NltkCorpusBleuDocstring) {
  const std::vector<std::vector<Tokens>> refs{{kRef1, kRef2, kRef3}, {kRef2a}};
  const std::vector<Tokens> hyps{kHyp1, kHyp2b};
  EXPECT_NEAR(corpus_bleu(refs, hyps).bleu, 0.5920778868801042, 1e-12);
  EXPECT_NEAR(corpus_bleu(refs, hyps, with_weights({0.1, 0.3, 0.5, 0.1})).bleu, 0.5818765313748497, 1e-12);
  // Micro-average, not the mean of sentence scores (0.6223... in NLTK's docstring).
  const double mean = (sentence_bleu(refs[0], hyps[0]).bleu + sentence_bleu(refs[1], hyps[1]).bleu) / 2;
  EXPECT_NEAR(mean, 0.6223, 1e-4);
}

TEST(Bleu, NltkDocstringSecondHypothesis) {
  const std::vector<Tokens> refs{kRef1, kRef2, kRef3};
  EXPECT_NEAR(sentence_bleu(refs, kHyp2, with_smoothing(Smoothing::kMethod1)).bleu, 0.03703131191121491, 1e-12);
  const BleuScore plain = sentence_bleu(refs, kHyp2);
  EXPECT_EQ(plain.matches, (std::vector<std::size_t>{8, 1, 0, 0}));
  EXPECT_EQ(plain.totals, (std::vector<std::size_t>{14, 13, 12, 11}));
  // No smoothing: NLTK's method0 puts DBL_MIN for the empty orders, which is not 0.
  expect_relative(plain.bleu, 5.92086005993801e-155, 1e-12);
  // The other methods on the same sentence, values from NLTK 3.8.
  const std::map<Smoothing, double> nltk{{Smoothing::kMethod2, 0.13111209575157431},
                                         {Smoothing::kMethod3, 0.06963003305718092},
                                         {Smoothing::kMethod4, 0.050586660655564},
                                         {Smoothing::kMethod5, 0.13294741324283815},
                                         {Smoothing::kMethod7, 0.14758356058214836}};
  for (const auto& [method, value] : nltk) {
    EXPECT_NEAR(sentence_bleu(refs, kHyp2, with_smoothing(method)).bleu, value, 1e-12) << smoothing_name(method);
  }
  // NLTK's method6 asserts that there are trigram matches; there are none here.
  EXPECT_THROW(sentence_bleu(refs, kHyp2, with_smoothing(Smoothing::kMethod6)), std::invalid_argument);
}

TEST(Bleu, NltkSmoothingFunctionDocstring) {
  const std::map<Smoothing, double> nltk{
      {Smoothing::kNone, 0.41180376356915777},    {Smoothing::kMethod1, 0.41180376356915777},
      {Smoothing::kMethod2, 0.4452945001507636},  {Smoothing::kMethod3, 0.41180376356915777},
      {Smoothing::kMethod4, 0.41180376356915777}, {Smoothing::kMethod5, 0.4905328138015114},
      {Smoothing::kMethod6, 0.41358958106633686}, {Smoothing::kMethod7, 0.4905328138015114}};
  for (const auto& [method, value] : nltk) {
    EXPECT_NEAR(sentence_bleu({kRef1}, kHyp1, with_smoothing(method)).bleu, value, 1e-12) << smoothing_name(method);
  }
}

TEST(Bleu, EmptyHypothesisScoresZero) {
  for (int m = 0; m < 8; ++m) {
    const BleuScore score = sentence_bleu({kRef1}, {}, with_smoothing(static_cast<Smoothing>(m)));
    EXPECT_EQ(score.bleu, 0.0);
    EXPECT_EQ(score.bp, 0.0);
    EXPECT_EQ(score.hyp_len, 0u);
    EXPECT_EQ(score.ref_len, kRef1.size());
    EXPECT_EQ(score.matches, (std::vector<std::size_t>{0, 0, 0, 0}));
    EXPECT_EQ(score.totals, (std::vector<std::size_t>{1, 1, 1, 1}));  // NLTK's max(1, count)
  }
}

TEST(Bleu, HypothesisShorterThanFourWords) {
  const std::vector<Tokens> refs{{"the", "cat", "sat"}};
  const Tokens hyp{"the", "cat"};
  const BleuScore plain = sentence_bleu(refs, hyp);
  expect_relative(plain.bleu, 9.047424648113057e-155, 1e-12);  // NLTK 3.8
  EXPECT_EQ(plain.totals, (std::vector<std::size_t>{2, 1, 1, 1}));
  BleuOptions reweigh;
  reweigh.auto_reweigh = true;  // weights 1/2, 1/2: both precisions are 1, BLEU = BP
  EXPECT_NEAR(sentence_bleu(refs, hyp, reweigh).bleu, std::exp(1.0 - 3.0 / 2.0), 1e-15);
  // auto_reweigh only replaces the default weights.
  reweigh.weights = {0.5, 0.5, 0.0, 0.0};
  EXPECT_EQ(sentence_bleu(refs, hyp, reweigh).bleu, sentence_bleu(refs, hyp, with_weights({0.5, 0.5, 0, 0})).bleu);
}

TEST(Bleu, ClippingTheTheThe) {
  const std::vector<Tokens> refs{split_whitespace("the cat is on the mat"),
                                 split_whitespace("there is a cat on the mat")};
  const BleuScore score = sentence_bleu(refs, split_whitespace("the the the the the the the"), with_weights({1.0}));
  EXPECT_EQ(score.matches[0], 2u);  // "the" occurs at most twice in one reference
  EXPECT_EQ(score.totals[0], 7u);
  EXPECT_DOUBLE_EQ(score.bleu, 2.0 / 7.0);
}

TEST(Bleu, MultipleReferencesClipPerReferenceAndPickClosestLength) {
  // Clipping takes the maximum count over references, not the sum.
  const BleuScore clipped = sentence_bleu({{"a", "b"}, {"a", "c"}}, {"a", "a", "a"}, with_weights({1.0}));
  EXPECT_EQ(clipped.matches[0], 1u);
  // Closest reference length; on a tie the shorter one, whatever the order.
  const Tokens hyp(12, "a");
  for (const auto& refs :
       {std::vector<Tokens>{Tokens(13, "a"), Tokens(11, "a")}, std::vector<Tokens>{Tokens(11, "a"), Tokens(13, "a")}}) {
    const BleuScore score = sentence_bleu(refs, hyp);
    EXPECT_EQ(score.ref_len, 11u);
    EXPECT_EQ(score.bp, 1.0);
  }
  const BleuScore shorter = sentence_bleu({Tokens(11, "a"), Tokens(8, "a")}, Tokens(7, "a"));
  EXPECT_EQ(shorter.ref_len, 8u);
  EXPECT_NEAR(shorter.bp, std::exp(1.0 - 8.0 / 7.0), 1e-15);  // NLTK's 0.8668...
}

TEST(Bleu, NoUnigramMatchIsExactlyZero) {
  for (int m = 0; m < 8; ++m) {
    const BleuScore score =
        sentence_bleu({{"x", "y", "z", "w"}}, {"a", "b", "c", "d", "e"}, with_smoothing(static_cast<Smoothing>(m)));
    EXPECT_EQ(score.bleu, 0.0);
    EXPECT_EQ(score.bp, 1.0);
  }
}

TEST(Bleu, CorpusOfRepeatedSentenceEqualsSentence) {
  const std::vector<Tokens> refs{kRef1, kRef2, kRef3};
  const BleuScore one = sentence_bleu(refs, kHyp2, with_smoothing(Smoothing::kMethod3));
  const BleuScore two = corpus_bleu({refs, refs}, {kHyp2, kHyp2}, with_smoothing(Smoothing::kMethod3));
  EXPECT_EQ(two.matches[1], 2 * one.matches[1]);
  EXPECT_EQ(two.hyp_len, 2 * one.hyp_len);
  EXPECT_NE(two.bleu, one.bleu);  // method3's 1/(2^k * denominator) sees the doubled counts
  EXPECT_EQ(corpus_bleu({refs, refs}, {kHyp1, kHyp1}).bleu, sentence_bleu(refs, kHyp1).bleu);
}

TEST(Bleu, StripsSpecialTokens) {
  const Tokens decoded = split_whitespace("EOS cualquiera puede leerlo EOS EOS <pad> <pad>");
  const Tokens target = split_whitespace("SOS cualquiera puede leerlo EOS");
  EXPECT_EQ(strip_special_tokens(decoded), split_whitespace("cualquiera puede leerlo"));
  EXPECT_EQ(strip_special_tokens(target), split_whitespace("cualquiera puede leerlo"));
  EXPECT_EQ(strip_special_tokens(split_whitespace("<s> a </s> b"), {"<s>", "</s>"}), split_whitespace("a b"));
  BleuOptions bigrams = with_weights({0.5, 0.5});
  EXPECT_EQ(sentence_bleu({strip_special_tokens(target)}, strip_special_tokens(decoded), bigrams).bleu, 1.0);
  EXPECT_LT(sentence_bleu({target}, decoded, bigrams).bleu, 1.0);
}

TEST(Bleu, RejectsBadInput) {
  EXPECT_THROW(corpus_bleu({{kRef1}}, {kHyp1, kHyp2}), std::invalid_argument);
  EXPECT_THROW(corpus_bleu({}, {}), std::invalid_argument);
  EXPECT_THROW(sentence_bleu({}, kHyp1), std::invalid_argument);
  EXPECT_THROW(sentence_bleu({kRef1}, kHyp1, with_weights({})), std::invalid_argument);
  BleuOptions method6 = with_weights({0.5, 0.5});
  method6.smoothing = Smoothing::kMethod6;  // NLTK's p_n[2] does not exist: IndexError
  EXPECT_THROW(sentence_bleu({kRef1}, kHyp1, method6), std::invalid_argument);
  try {
    corpus_bleu({{kRef1}, {kRef2}}, {kHyp1});
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "corpus_bleu: 1 hypotheses but 2 reference lists");
  }
}

TEST(Bleu, SmoothingNames) {
  for (int m = 0; m < 8; ++m) {
    const auto method = static_cast<Smoothing>(m);
    EXPECT_EQ(parse_smoothing(smoothing_name(method)), method);
    EXPECT_EQ(parse_smoothing("method" + std::to_string(m)), method);
  }
  EXPECT_EQ(smoothing_name(Smoothing::kNone), "none");
  EXPECT_THROW(parse_smoothing("method8"), std::invalid_argument);
  EXPECT_THROW(parse_smoothing(""), std::invalid_argument);
}

TEST(Bleu, SplitWhitespace) {
  EXPECT_EQ(split_whitespace("  a\tbb \n c\r\n"), (Tokens{"a", "bb", "c"}));
  EXPECT_TRUE(split_whitespace(" \t ").empty());
  EXPECT_TRUE(split_whitespace("").empty());
}

TEST(Bleu, ShortHypothesisIsPenalised) {
  const BleuScore real = sentence_bleu({kRef1}, split_whitespace("It is a guide to action"));
  EXPECT_NEAR(real.bleu, 0.18887560283756186, 1e-12);  // NLTK 3.8
  EXPECT_EQ(real.precisions, (std::vector<double>{1.0, 1.0, 1.0, 1.0}));
  EXPECT_NEAR(real.bp, 0.18887560283756186, 1e-12);
  EXPECT_DOUBLE_EQ(real.ratio, 0.375);
  EXPECT_EQ(real.hyp_len, 6u);
  EXPECT_EQ(real.ref_len, 16u);
}

// modified_precision written out plainly (a map from n-gram to count), for comparison.
std::pair<std::size_t, std::size_t> plain_modified_precision(const std::vector<Tokens>& refs, const Tokens& hyp,
                                                             std::size_t n) {
  auto count = [n](const Tokens& tokens) {
    std::map<Tokens, std::size_t> counts;
    for (std::size_t i = 0; i + n <= tokens.size(); ++i) ++counts[Tokens(tokens.begin() + i, tokens.begin() + i + n)];
    return counts;
  };
  const auto hyp_counts = count(hyp);
  std::size_t matched = 0, total = 0;
  for (const auto& [ngram, c] : hyp_counts) {
    std::size_t most = 0;
    for (const auto& ref : refs) {
      const auto ref_counts = count(ref);
      const auto it = ref_counts.find(ngram);
      if (it != ref_counts.end()) most = std::max(most, it->second);
    }
    matched += std::min(c, most);
    total += c;
  }
  return {matched, std::max<std::size_t>(total, 1)};
}

std::vector<Tokens> random_corpus(std::mt19937& rng, std::size_t sentences, std::size_t vocab, std::size_t min_len,
                                  std::size_t max_len) {
  std::vector<Tokens> corpus(sentences);
  for (auto& sentence : corpus) {
    sentence.resize(min_len + rng() % (max_len - min_len + 1));
    for (auto& token : sentence) token = "w" + std::to_string(rng() % vocab);
  }
  return corpus;
}

TEST(Bleu, CountsMatchPlainCountingOnLongSentences) {
  std::mt19937 rng(7);
  const auto hyps = random_corpus(rng, 40, 2, 0, 60);  // 2 words: many repeated long n-grams
  const auto refs = random_corpus(rng, 120, 2, 0, 60);
  BleuOptions options = with_weights(std::vector<double>(8, 0.125));
  std::vector<std::vector<Tokens>> corpus_refs;
  std::vector<std::size_t> matches(8, 0), totals(8, 0);
  for (std::size_t i = 0; i < hyps.size(); ++i) {
    corpus_refs.push_back({refs[3 * i], refs[3 * i + 1], refs[3 * i + 2]});
    for (std::size_t n = 1; n <= 8; ++n) {
      const auto [m, t] = plain_modified_precision(corpus_refs.back(), hyps[i], n);
      matches[n - 1] += m;
      totals[n - 1] += t;
    }
  }
  const BleuScore score = corpus_bleu(corpus_refs, hyps, options);
  EXPECT_EQ(score.matches, matches);
  EXPECT_EQ(score.totals, totals);
  EXPECT_GT(matches[7], 0u);
}

TEST(Bleu, CorpusOfTwoThousandSentencesIsFast) {
  std::mt19937 rng(11);
  const auto hyps = random_corpus(rng, 2000, 3000, 4, 25);
  const auto refs = random_corpus(rng, 2000, 3000, 4, 25);
  std::vector<std::vector<Tokens>> corpus_refs;
  for (std::size_t i = 0; i < hyps.size(); ++i) corpus_refs.push_back({refs[i], hyps[i]});
  double best_ms = 1e9;
  BleuScore score;
  for (int repeat = 0; repeat < 5; ++repeat) {
    const auto start = std::chrono::steady_clock::now();
    score = corpus_bleu(corpus_refs, hyps);
    const std::chrono::duration<double, std::milli> elapsed = std::chrono::steady_clock::now() - start;
    best_ms = std::min(best_ms, elapsed.count());
  }
  EXPECT_EQ(score.matches, score.totals);  // every hypothesis is one of its references
  std::printf("corpus_bleu over %zu sentences (%zu hypothesis tokens): %.3f ms\n", hyps.size(), score.hyp_len, best_ms);
  EXPECT_LT(best_ms, 100.0);  // ~1 ms in Release; the bound only catches gross slowness
}

}  // namespace
}  // namespace dls::eval

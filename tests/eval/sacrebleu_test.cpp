// sacreBLEU-style BLEU against the values of sacreBLEU 2.x's own tests: test/test_bleu.py and
// test/test_sentence_bleu.py of github.com/mjpost/sacrebleu (the expected numbers are
// copied from there; each test names its source), plus the signature and report line.
#include "dls/eval/sacrebleu.h"

#include <gtest/gtest.h>

#include <stdexcept>

#include <spdlog/fmt/fmt.h>

namespace dls::eval {
namespace {

// test_bleu.py's README example: two reference streams; sentence i has refs[0][i], refs[1][i].
const std::vector<std::string> kReadmeHyps{"The dog bit the man.", "It wasn't surprising.",
                                           "The man had just bitten him."};
const std::vector<std::vector<std::string>> kReadmeRefs{{"The dog bit the man.", "The dog had bit the man."},
                                                        {"It was not unexpected.", "No one was surprised."},
                                                        {"The man bit him first.", "The man had bitten the dog."}};

// One reference per sentence.
std::vector<std::vector<std::string>> single_refs(const std::vector<std::string>& refs) {
  std::vector<std::vector<std::string>> out;
  for (const auto& r : refs) out.push_back({r});
  return out;
}

// sacrebleu.raw_corpus_bleu(hyps, [refs], smooth_value): floor smoothing, no tokeniser,
// effective order.
SacreBleuOptions raw_corpus_options(double smooth_value) {
  SacreBleuOptions options;
  options.smoothing = SacreSmoothing::kFloor;
  options.smooth_value = smooth_value;
  options.tokenizer = SacreTokenizer::kNone;
  options.effective_order = true;
  return options;
}

TEST(SacreBleu, CorpusBleuOfTestBleuPy) {
  // test_corpus_bleu_cases: default settings, tokenize '13a' and smooth_method 'none'.
  EXPECT_NEAR(sacrebleu_corpus(kReadmeHyps, kReadmeRefs).score, 48.530827, 1e-6);
  SacreBleuOptions unsmoothed;
  unsmoothed.smoothing = SacreSmoothing::kNone;
  EXPECT_NEAR(sacrebleu_corpus(kReadmeHyps, kReadmeRefs, unsmoothed).score, 48.530827, 1e-6);
  SacreBleuOptions untokenized;
  untokenized.tokenizer = SacreTokenizer::kNone;
  EXPECT_NEAR(sacrebleu_corpus(kReadmeHyps, kReadmeRefs, untokenized).score, 49.1919566, 1e-6);
  // Empty hypotheses are scored, not removed.
  EXPECT_EQ(sacrebleu_corpus({"", "", ""}, kReadmeRefs).score, 0.0);
}

TEST(SacreBleu, MaxNgramOrderOfTestBleuPy) {
  // test_bleu_max_order: BLEU(max_ngram_order=order).corpus_score, printed with 2 decimals.
  const std::vector<std::string> expected{"77.65", "60.50", "53.93", "48.53", "46.14", "43.28"};
  for (int order = 1; order <= 6; ++order) {
    SacreBleuOptions options;
    options.max_order = order;
    EXPECT_EQ(fmt::format("{:.2f}", sacrebleu_corpus(kReadmeHyps, kReadmeRefs, options).score), expected[order - 1])
        << "order " << order;
  }
}

TEST(SacreBleu, RawCorpusBleuOfTestBleuPy) {
  const auto raw = [](const std::vector<std::string>& hyps, const std::vector<std::string>& refs, double value) {
    return sacrebleu_corpus(hyps, single_refs(refs), raw_corpus_options(value)).score / 100;
  };
  // test_raw_bleu_cases (the first returns 0 since sacreBLEU #141: no match at all).
  EXPECT_NEAR(raw({"this is a test", "another test"}, {"ref1", "ref2"}, .01), 0.0, 1e-8);
  EXPECT_NEAR(raw({"this is a test"}, {"this is a test"}, .01), 1.0, 1e-8);
  EXPECT_NEAR(raw({"this is a fest"}, {"this is a test"}, .01), 0.223606797749979, 1e-8);
  // test_case_effective_order.
  EXPECT_NEAR(raw({"test"}, {"a test"}, .01), 0.3678794411714425, 1e-8);
  EXPECT_NEAR(raw({"a test"}, {"a test"}, .01), 1.0, 1e-8);
  EXPECT_NEAR(raw({"a little test"}, {"a test"}, .01), 0.03218297948685433, 1e-8);
  // test_case_offset: floor 0 gives 0, the default floor (0.1) 0.1555722182.
  EXPECT_NEAR(raw({"am I am a character sequence"}, {"I am a symbol string sequence a a"}, 0.0), 0.0, 1e-8);
  EXPECT_NEAR(raw({"am I am a character sequence"}, {"I am a symbol string sequence a a"}, NAN), 0.1555722182, 1e-8);
  // test_case_statistics.
  const auto stats = sacrebleu_corpus({"am I am a character sequence"}, {{"I am a symbol string sequence a a"}},
                                      raw_corpus_options(.01));
  EXPECT_EQ(stats.counts, (std::vector<std::size_t>{4, 2, 1, 0}));
  EXPECT_EQ(stats.totals, (std::vector<std::size_t>{6, 5, 4, 3}));
}

TEST(SacreBleu, ScoringAndDegenerateStatisticsOfTestBleuPy) {
  // test_case_scoring: BLEU.compute_bleu with its default smoothing, 'none'.
  SacreBleuOptions unsmoothed;
  unsmoothed.smoothing = SacreSmoothing::kNone;
  EXPECT_NEAR(sacrebleu_from_statistics({9, 7, 5, 3}, {10, 8, 6, 4}, 11, 11, unsmoothed).score / 100, 0.8375922397,
              1e-8);
  // test_case_degenerate_stats: floor smoothing with the given value, exactly 0.
  struct Case {
    std::vector<std::size_t> counts, totals;
    std::size_t sys_len, ref_len;
    double floor;
  };
  const std::vector<Case> cases{{{0, 0, 0, 0}, {4, 4, 2, 1}, 0, 1, 0.0}, {{0, 0, 0, 0}, {10, 11, 12, 0}, 14, 10, 0.0},
                                {{0, 0, 0, 0}, {0, 0, 0, 0}, 0, 0, 0.0}, {{6, 5, 4, 0}, {6, 5, 4, 3}, 6, 6, 0.0},
                                {{0, 0, 0, 0}, {0, 0, 0, 0}, 0, 0, 0.1}, {{0, 0, 0, 0}, {0, 0, 0, 0}, 1, 5, 0.01}};
  for (const auto& c : cases) {
    SacreBleuOptions floor;
    floor.smoothing = SacreSmoothing::kFloor;
    floor.smooth_value = c.floor;
    EXPECT_EQ(sacrebleu_from_statistics(c.counts, c.totals, c.sys_len, c.ref_len, floor).score, 0.0);
  }
  EXPECT_THROW(sacrebleu_from_statistics({1, 2}, {1, 2, 3, 4}, 4, 4), std::invalid_argument);
}

TEST(SacreBleu, SentenceBleuOfTestSentenceBleuPy) {
  // test_api_sentence_bleu: BLEU(..., effective_order=True).sentence_score(SYS, [REF]),
  // checked to 1e-3 there.
  const std::string ref = "producţia de zahăr brut se exprimă în zahăr alb;";
  const std::string sys = "Producția de zahăr primă va fi exprimată în ceea ce privește zahărul alb;";
  struct Case {
    SacreSmoothing smoothing;
    double value;
    SacreTokenizer tokenizer;
    double expected;
  };
  const std::vector<Case> cases{
      {SacreSmoothing::kExp, NAN, SacreTokenizer::k13a, 8.493},
      {SacreSmoothing::kNone, NAN, SacreTokenizer::k13a, 0.0},
      {SacreSmoothing::kFloor, NAN, SacreTokenizer::k13a, 4.51688},
      {SacreSmoothing::kFloor, 0.1, SacreTokenizer::k13a, 4.51688},
      {SacreSmoothing::kFloor, 0.5, SacreTokenizer::k13a, 10.10},
      {SacreSmoothing::kAddK, NAN, SacreTokenizer::k13a, 14.882},
      {SacreSmoothing::kAddK, 1, SacreTokenizer::k13a, 14.882},
      {SacreSmoothing::kAddK, 2, SacreTokenizer::k13a, 21.389},
      {SacreSmoothing::kExp, NAN, SacreTokenizer::kNone, 7.347},
  };
  for (const auto& c : cases) {
    SacreBleuOptions options;
    options.smoothing = c.smoothing;
    options.smooth_value = c.value;
    options.tokenizer = c.tokenizer;
    options.effective_order = true;
    EXPECT_NEAR(sacrebleu_corpus({sys}, {{ref}}, options).score, c.expected, 1e-3)
        << static_cast<int>(c.smoothing) << " " << c.value;
    // test_api_sentence_bleu_zero (sacreBLEU #141): no match at all is 0 whatever the smoothing.
    EXPECT_EQ(sacrebleu_corpus({"this is a cat"}, {{"okay thanks"}}, options).score, 0.0);
  }
}

TEST(SacreBleu, SignatureAndLine) {
  const auto score = sacrebleu_corpus(kReadmeHyps, kReadmeRefs);
  EXPECT_EQ(score.signature, "nrefs:2|case:mixed|eff:no|tok:13a|smooth:exp|version:dls-cpp");
  EXPECT_EQ(score.sys_len, 17u);
  EXPECT_EQ(score.line().substr(0, 12), "BLEU = 48.5 ");
  EXPECT_EQ(score.line(true).substr(0, 79),
            "BLEU|nrefs:2|case:mixed|eff:no|tok:13a|smooth:exp|version:dls-cpp = 48.5 " + score.line().substr(12, 6));
  SacreBleuOptions options = raw_corpus_options(NAN);
  options.lowercased_text = true;
  EXPECT_EQ(sacrebleu_signature(options, "1"), "nrefs:1|case:lc|eff:yes|tok:none|smooth:floor[0.10]|version:dls-cpp");
  options.smoothing = SacreSmoothing::kAddK;
  EXPECT_EQ(sacrebleu_signature(options, "var"),
            "nrefs:var|case:lc|eff:yes|tok:none|smooth:add-k[1.00]|version:dls-cpp");
  // Empty references are left out of the count; a varying count is "var".
  EXPECT_EQ(reference_count_label({{"a", ""}, {"b", "c"}}), "var");
  EXPECT_EQ(reference_count_label({{"a", ""}, {"", "c"}}), "1");

  SacreBleuScore fixed;
  fixed.score = 45.1249;
  fixed.precisions = {78.349, 52.09, 38.0, 27.4};
  fixed.bp = 0.95312;
  fixed.sys_len = 1234;
  fixed.ref_len = 1293;
  EXPECT_EQ(fixed.line(), "BLEU = 45.1 78.3/52.1/38.0/27.4 (BP = 0.953 ratio = 0.954 hyp_len = 1234 ref_len = 1293)");
}

TEST(SacreBleu, BadInput) {
  EXPECT_THROW(sacrebleu_corpus({"a"}, {}), std::invalid_argument);
  EXPECT_THROW(sacrebleu_corpus({}, {}), std::invalid_argument);
  // A sentence without a (non-empty) reference counts its hypothesis with reference length 0.
  const auto score = sacrebleu_corpus({"a b", "a b"}, {{""}, {"a b"}});
  EXPECT_EQ(score.sys_len, 4u);
  EXPECT_EQ(score.ref_len, 2u);
  EXPECT_EQ(score.counts, (std::vector<std::size_t>{2, 1, 0, 0}));
}

}  // namespace
}  // namespace dls::eval

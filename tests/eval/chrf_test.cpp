// chrF against the values of sacreBLEU 2.x's own tests, test/test_chrf.py of
// github.com/mjpost/sacrebleu (expected numbers copied from there, checked to 1e-4 as
// there), plus a plain re-count and the signature.
#include "dls/eval/chrf.h"

#include <gtest/gtest.h>

#include <map>
#include <stdexcept>

namespace dls::eval {
namespace {

struct ChrfCase {
  std::vector<std::string> hyps, refs;  // one reference per hypothesis
  double expected;
};

double chrf_of(const ChrfCase& c, const ChrfOptions& options) {
  std::vector<std::vector<std::string>> refs;
  for (const auto& r : c.refs) refs.push_back({r});
  return corpus_chrf(c.hyps, refs, options).score;
}

// corpus_chrf(hyps, [refs], char_order=6, word_order=0, beta=3, ...).
ChrfOptions beta3(bool eps_smoothing, bool whitespace = false) {
  ChrfOptions options;
  options.beta = 3;
  options.eps_smoothing = eps_smoothing;
  options.whitespace = whitespace;
  return options;
}

TEST(Chrf, EpsSmoothingCasesOfTestChrfPy) {
  const std::vector<ChrfCase> cases{
      {{"abcdefg"}, {"hijklmnop"}, 0.0},
      {{"a"}, {"b"}, 0.0},
      {{""}, {"b"}, 0.0},
      {{""}, {"ref"}, 0.0},
      {{""}, {"reference"}, 0.0},
      {{"aa"}, {"ab"}, 8.3333},
      {{"a", "b"}, {"a", "c"}, 8.3333},
      {{"a"}, {"a"}, 16.6667},
      {{"a b c"}, {"a b c"}, 50.0},
      {{"a b c"}, {"abc"}, 50.0},
      {{" risk assessment must be made of those who are qualified and expertise in the sector - these are the "
        "scientists ."},
       {"risk assessment has to be undertaken by those who are qualified and expert in that area - that is the "
        "scientists ."},
       63.361730},
      {{" Die    Beziehung zwischen  Obama und Netanjahu ist nicht gerade  freundlich. "},
       {"Das Verhältnis zwischen Obama und Netanyahu ist nicht gerade freundschaftlich."},
       64.1302698},
      {{"Niemand hat die Absicht, eine Mauer zu errichten"},
       {"Niemand hat die Absicht, eine Mauer zu errichten"},
       100.0},
  };
  for (const auto& c : cases) EXPECT_NEAR(chrf_of(c, beta3(true)), c.expected, 1e-4) << c.hyps[0];
}

TEST(Chrf, EffectiveOrderCasesOfTestChrfPy) {
  // sacreBLEU's default averaging (eps_smoothing=False), as checkpoint_eval reports it.
  const std::vector<ChrfCase> cases{
      {{"a"}, {"a"}, 100.0}, {{""}, {"reference"}, 0.0},     {{"a b c"}, {"a b c"}, 100.0}, {{"a b c"}, {"abc"}, 100.0},
      {{""}, {"c"}, 0.0},    {{"a", "b"}, {"a", "c"}, 50.0}, {{"aa"}, {"ab"}, 25.0},
  };
  for (const auto& c : cases) EXPECT_NEAR(chrf_of(c, beta3(false)), c.expected, 1e-4) << c.hyps[0];
}

TEST(Chrf, KeepWhitespaceCasesOfTestChrfPy) {
  const std::vector<ChrfCase> cases{
      {{"Die Beziehung zwischen Obama und Netanjahu ist nicht gerade freundlich."},
       {"Das Verhältnis zwischen Obama und Netanyahu ist nicht gerade freundschaftlich."},
       67.3481606},
      {{"risk assessment must be made of those who are qualified and expertise in the sector - these are the "
        "scientists ."},
       {"risk assessment has to be undertaken by those who are qualified and expert in that area - that is the "
        "scientists ."},
       65.2414427},
  };
  for (const auto& c : cases) EXPECT_NEAR(chrf_of(c, beta3(false, true)), c.expected, 1e-4) << c.hyps[0];
}

TEST(Chrf, SentenceLevelCasesOfTestChrfPy) {
  // sentence_chrf(hyp, refs, eps_smoothing=True) with the default beta 2; Czech, so the
  // n-grams are of code points, not bytes.
  ChrfOptions options;
  options.eps_smoothing = true;
  const std::vector<ChrfCase> cases{
      {{"Co nás nejvíc trápí, protože lékaři si vybírají, kdo bude žít a kdo zemře."},
       {"Nejvíce smutní jsme z toho, že musíme rozhodovat o tom, kdo bude žít a kdo zemře."},
       39.14078509},
      {{"Nebo prostě nemají vybavení, které by jim pomohlo, uvedli lékaři."},
       {"A někdy nemáme ani potřebný materiál, abychom jim pomohli, popsali lékaři."},
       31.22557079},
      {{"Lapali po dechu, jejich životy skončily dřív, než skutečně začaly."},
       {"Lapali po dechu a pak jejich život skončil - dřív, než skutečně mohl začít, připomněli."},
       57.15704367},
  };
  for (const auto& c : cases) EXPECT_NEAR(chrf_of(c, options), c.expected, 1e-4) << c.hyps[0];
}

// The statistics of one order counted plainly: maps of n-gram -> count.
ChrfOrderCounts plain_chrf_counts(const std::u32string& hyp, const std::u32string& ref, std::size_t n) {
  std::map<std::u32string, std::size_t> h, r;
  for (std::size_t i = 0; i + n <= hyp.size(); ++i) ++h[hyp.substr(i, n)];
  for (std::size_t i = 0; i + n <= ref.size(); ++i) ++r[ref.substr(i, n)];
  ChrfOrderCounts counts;
  for (const auto& [ngram, count] : r) counts.reference += count;
  for (const auto& [ngram, count] : h) {
    if (!r.empty()) counts.hypothesis += count;
    const auto it = r.find(ngram);
    if (it != r.end()) counts.matched += std::min(count, it->second);
  }
  return counts;
}

TEST(Chrf, CountsEqualAPlainRecount) {
  const std::string hyp = "el gato negro come pescado", ref = "un gato negro comía pescado fresco";
  const auto score = corpus_chrf({hyp}, {{ref}});
  const std::u32string h = U"elgatonegrocomepescado", r = U"ungatonegrocomíapescadofresco";
  for (std::size_t n = 1; n <= 6; ++n) {
    const auto plain = plain_chrf_counts(h, r, n);
    EXPECT_EQ(score.orders[n - 1].hypothesis, plain.hypothesis) << n;
    EXPECT_EQ(score.orders[n - 1].reference, plain.reference) << n;
    EXPECT_EQ(score.orders[n - 1].matched, plain.matched) << n;
  }
  EXPECT_GT(score.score, 0.0);
  EXPECT_LT(score.score, 100.0);
}

TEST(Chrf, BestReferenceSignatureAndLine) {
  // The reference with the better sentence F-score is the one counted.
  const auto two = corpus_chrf({"the cat"}, {{"a dog", "the cat"}});
  EXPECT_DOUBLE_EQ(two.score, 100.0);
  EXPECT_EQ(two.signature, "nrefs:2|case:mixed|eff:yes|nc:6|nw:0|space:no|version:dls-cpp");
  EXPECT_EQ(two.line(), "chrF2 = 100.0");
  EXPECT_EQ(two.line(true), "chrF2|nrefs:2|case:mixed|eff:yes|nc:6|nw:0|space:no|version:dls-cpp = 100.0");
  ChrfOptions options;
  options.lowercased_text = true;
  options.eps_smoothing = true;
  EXPECT_EQ(chrf_signature(options, "1"), "nrefs:1|case:lc|eff:no|nc:6|nw:0|space:no|version:dls-cpp");
  EXPECT_THROW(corpus_chrf({"a"}, {}), std::invalid_argument);
  EXPECT_THROW(corpus_chrf({}, {}), std::invalid_argument);
}

}  // namespace
}  // namespace dls::eval

// Corpus BLEU as sacreBLEU 2.x computes it (sacrebleu/metrics/bleu.py): text in, tokenised
// with 13a (eval/tokenizer_13a.h) or split at whitespace ("none"), n-grams of orders
// 1..4 counted per sentence against the most generous reference and summed over the corpus,
// a brevity penalty from the closest reference lengths, 'exp' smoothing by default, on the
// 0-100 scale. Reported with the signature that says how the number was made:
//   nrefs:1|case:lc|eff:no|tok:13a|smooth:exp|version:dls-cpp
// "version:dls-cpp" says the number comes from this project's implementation, not from
// sacreBLEU itself (tests/eval/sacrebleu_test.cpp checks it against sacreBLEU's own test
// values). Unlike NLTK's BLEU (eval/bleu.h), an order without hypothesis n-grams counts 0,
// not 1, and with smoothing 'none' an order without matches has precision 0, whose log is
// taken as -9999999999 (sacreBLEU's my_log), so the score is 0.
#pragma once

#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

namespace dls::eval {

enum class SacreSmoothing {
  kNone,   // an order without matches makes the score 0
  kFloor,  // an order without matches gets precision smooth_value / total (default 0.1)
  kAddK,   // orders >= 2: (matches + k) / (total + k) (default k = 1)
  kExp,    // the k-th order without matches gets 1 / (2^k * total) (mteval-v13a's, default)
};

enum class SacreTokenizer { k13a, kNone };

struct SacreBleuOptions {
  SacreTokenizer tokenizer = SacreTokenizer::k13a;
  SacreSmoothing smoothing = SacreSmoothing::kExp;
  double smooth_value = NAN;     // kFloor, kAddK; NaN: sacreBLEU's default (0.1, 1)
  bool effective_order = false;  // average only the orders the hypotheses have n-grams of
  int max_order = 4;             // highest n-gram order
  // The texts were lowercased before scoring (DLStudio's normalisation lowercases both
  // sides): the signature says case:lc. The scorer itself never changes case.
  bool lowercased_text = false;
};

struct SacreBleuScore {
  double score = 0;                 // 0..100
  std::vector<std::size_t> counts;  // clipped n-gram matches per order, summed over sentences
  std::vector<std::size_t> totals;  // hypothesis n-grams per order, summed (0 for short sentences)
  std::vector<double> precisions;   // 0..100, smoothed as the score used them
  double bp = 0;                    // brevity penalty
  std::size_t sys_len = 0;          // hypothesis tokens
  std::size_t ref_len = 0;          // closest reference lengths (ties: the shorter), summed
  std::string signature;            // "nrefs:1|case:lc|eff:no|tok:13a|smooth:exp|version:dls-cpp"

  double ratio() const { return ref_len == 0 ? 0.0 : static_cast<double>(sys_len) / static_cast<double>(ref_len); }
  // sacreBLEU's line with one decimal, as its command line prints it:
  // "BLEU = 48.5 82.4/50.0/45.5/37.5 (BP = 0.943 ratio = 0.944 hyp_len = 17 ref_len = 18)",
  // with the signature "BLEU|nrefs:2|case:mixed|...|version:dls-cpp = 48.5 ...".
  std::string line(bool with_signature = false) const;
};

// BLEU.compute_bleu: the score from summed statistics (counts, totals of max_order orders).
// Leaves signature empty.
SacreBleuScore sacrebleu_from_statistics(const std::vector<std::size_t>& counts, const std::vector<std::size_t>& totals,
                                         std::size_t sys_len, std::size_t ref_len,
                                         const SacreBleuOptions& options = {});

// BLEU(...).corpus_score: references[i] holds the references of hypotheses[i] (one or more;
// empty strings are left out, as sacreBLEU does). A sentence without any non-empty reference,
// which sacreBLEU refuses, is scored here with reference length 0 and no reference n-grams.
// Throws std::invalid_argument when the sizes differ or there is no sentence.
SacreBleuScore sacrebleu_corpus(const std::vector<std::string>& hypotheses,
                                const std::vector<std::vector<std::string>>& references,
                                const SacreBleuOptions& options = {});

// sacreBLEU's signature of these options; `nrefs` is a count or "var".
std::string sacrebleu_signature(const SacreBleuOptions& options, const std::string& nrefs);

// The references per sentence as sacreBLEU counts them for the signature: the number of
// non-empty references when all sentences have the same, else "var".
std::string reference_count_label(const std::vector<std::vector<std::string>>& references);

}  // namespace dls::eval

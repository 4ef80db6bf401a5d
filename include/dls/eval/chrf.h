// chrF, the character n-gram F-score (Popović 2015), as sacreBLEU 2.x computes it
// (sacrebleu/metrics/chrf.py) with its defaults: character n-grams of orders 1..6, no word
// n-grams (chrF, not chrF++), beta 2 (recall weighs four times as much as precision),
// whitespace removed before counting. For every order the hypothesis, reference and matched
// n-grams are summed over the corpus; precision and recall are then averaged over the
// orders that have both hypothesis and reference n-grams ("effective order", sacreBLEU's
// default), and F_beta of the two averages is the score, 0..100. With eps_smoothing, the
// F-scores of all orders are averaged instead, an empty order counting 1e-16 (chrF++.py's,
// NLTK's and Moses' way). Characters are Unicode code points of UTF-8 text; case is kept.
// With several references a sentence counts the statistics of its reference with the best
// sentence F-score (the first of equals); empty references are left out.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace dls::eval {

struct ChrfOptions {
  int char_order = 6;            // n-gram orders 1..char_order
  int beta = 2;                  // F_beta: recall weighs beta^2 times precision
  bool whitespace = false;       // keep whitespace characters in the n-grams
  bool eps_smoothing = false;    // average the per-order F-scores (see above)
  bool lowercased_text = false;  // the signature says case:lc (the scorer never changes case)
};

// The n-grams of one order, summed over sentences.
struct ChrfOrderCounts {
  std::size_t hypothesis = 0;  // hypothesis n-grams (0 for a sentence whose reference has none)
  std::size_t reference = 0;   // reference n-grams
  std::size_t matched = 0;     // shared n-grams, each counted at most as often as in both
};

struct ChrfScore {
  double score = 0;                     // 0..100
  std::vector<ChrfOrderCounts> orders;  // [char_order]
  int beta = 2;                         // of the options, for the name
  std::string signature;                // "nrefs:1|case:lc|eff:yes|nc:6|nw:0|space:no|version:dls-cpp"
  // "chrF2 = 59.7" (one decimal); with the signature "chrF2|nrefs:1|...|version:dls-cpp = 59.7".
  std::string line(bool with_signature = false) const;
};

// The F-score of summed statistics (CHRF._compute_f_score); `orders` has char_order entries.
double chrf_from_statistics(const std::vector<ChrfOrderCounts>& orders, const ChrfOptions& options = {});

// CHRF(...).corpus_score: references[i] holds the references of hypotheses[i]. Throws
// std::invalid_argument when the sizes differ, there is no sentence, or char_order < 1.
ChrfScore corpus_chrf(const std::vector<std::string>& hypotheses,
                      const std::vector<std::vector<std::string>>& references, const ChrfOptions& options = {});

// sacreBLEU's chrF signature of these options; `nrefs` is a count or "var".
std::string chrf_signature(const ChrfOptions& options, const std::string& nrefs);

}  // namespace dls::eval

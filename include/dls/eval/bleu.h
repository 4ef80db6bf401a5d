// BLEU exactly as NLTK 3.8's nltk.translate.bleu_score computes it.
//
// What the numbers mean: `BleuScore::bleu` is on NLTK's 0–1 scale and equals what
// `sentence_bleu` / `corpus_bleu` of NLTK 3.8 return for the same tokens, weights,
// smoothing method and auto_reweigh: the same doubles for no smoothing and methods 1–4
// (same operations in the same order; same libm assumed), within ~1e-15 relative for
// methods 5–7, where NLTK adds exact fractions and we add doubles.
// Corpus BLEU sums the n-gram counts of all sentences before dividing (micro-average); it is
// not a mean of sentence scores. sacreBLEU's BLEU, on text and the 0–100 scale, is in
// eval/sacrebleu.h.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace dls::eval {

using Tokens = std::vector<std::string>;

// NLTK's SmoothingFunction().methodN (Chen & Cherry 2014), applied to the corpus counts.
enum class Smoothing {
  kNone,     // method0: an order without matches gets precision DBL_MIN, so BLEU is tiny
             // (e.g. 1e-155), not exactly 0
  kMethod1,  // orders without matches: epsilon / count
  kMethod2,  // orders >= 2: (matches + 1) / (count + 1) (Lin & Och 2004)
  kMethod3,  // k-th order without matches: 1 / (2^k * count) (NIST)
  kMethod4,  // like method3, scaled by ln(hypothesis length) / K
  kMethod5,  // each precision averaged with its neighbouring orders
  kMethod6,  // orders >= 3 interpolated with the prior p_{n-1}^2 / p_{n-2} (Gao & He 2013)
  kMethod7,  // method4, then method5
};

struct BleuOptions {
  // One weight per n-gram order 1..N; N = weights.size() >= 1 is the highest order counted.
  std::vector<double> weights{0.25, 0.25, 0.25, 0.25};
  Smoothing smoothing = Smoothing::kNone;
  double epsilon = 0.1;  // method1: count given to orders without matches
  double alpha = 5;      // method6: weight of the prior p_{n-1}^2 / p_{n-2}
  double k = 5;          // method4 (and method7): divisor of the smoothed count
  // NLTK's auto_reweigh: when the (corpus) hypothesis length h is below 4 and the weights
  // are exactly {0.25, 0.25, 0.25, 0.25}, use h weights of 1/h. (NLTK compares with a
  // tuple, so there a *list* of 0.25s never reweighs; here the values decide.)
  bool auto_reweigh = false;
};

// One BLEU result with the counts behind it; vectors have one entry per n-gram order.
struct BleuScore {
  double bleu = 0;                   // NLTK's value, 0..1 (methods 5, 7 can exceed 1, as in NLTK)
  std::vector<double> precisions;    // matches / totals, unsmoothed, 0..1
  double bp = 0;                     // brevity penalty: 1, exp(1 - ref/hyp), or 0 when hyp_len = 0
  double ratio = 0;                  // hyp_len / ref_len (0 when ref_len = 0)
  std::size_t hyp_len = 0;           // total hypothesis length in tokens
  std::size_t ref_len = 0;           // total length of the closest references (ties: shorter)
  std::vector<std::size_t> matches;  // clipped n-gram matches, summed over sentences
  // n-gram counts of the hypotheses summed over sentences, where each sentence counts at
  // least 1 (NLTK's max(1, count) per sentence, which it keeps in corpus BLEU).
  std::vector<std::size_t> totals;
};

// NLTK's sentence_bleu(references, hypothesis, weights, smoothing_function, auto_reweigh).
// Throws std::invalid_argument when `references` is empty (NLTK raises ValueError), on
// empty weights, and where NLTK's method6 raises (fewer than 3 orders, or no trigram match
// while there are unigram matches).
BleuScore sentence_bleu(const std::vector<Tokens>& references, const Tokens& hypothesis,
                        const BleuOptions& options = {});

// NLTK's corpus_bleu: references[i] are the references of hypotheses[i]. Throws
// std::invalid_argument when the sizes differ, when there are no sentences (NLTK raises
// ZeroDivisionError), and as sentence_bleu. As in NLTK, methods 5-7 look at the *last*
// sentence only for their hypothesis-dependent terms (5-gram precision for methods 5 and 7,
// n-gram counts for method6), and methods 4 and 7 at the total hypothesis length.
BleuScore corpus_bleu(const std::vector<std::vector<Tokens>>& references, const std::vector<Tokens>& hypotheses,
                      const BleuOptions& options = {});

// The tokens that DLStudio's vocabularies add around and after a sentence.
const std::vector<std::string>& default_special_tokens();  // {"SOS", "EOS", "<pad>"}

// `tokens` without any token equal to one of `specials` (every occurrence, anywhere).
// Apply it to hypotheses and references alike before scoring.
Tokens strip_special_tokens(const Tokens& tokens, const std::vector<std::string>& specials = default_special_tokens());

// "none" or "method0" .. "method7"; throws std::invalid_argument naming the bad value.
Smoothing parse_smoothing(const std::string& name);
// "none", "method1" .. "method7" (parse_smoothing's inverse).
std::string smoothing_name(Smoothing smoothing);

// Python's str.split() on the line, as NLTK's users split their text: at runs of Unicode
// whitespace (the no-break spaces French puts before ? and !, the ideographic space;
// tokenizer_13a.h lists them); no empty tokens. ASCII whitespace alone made "est-il\u00a0?"
// one word where the reference has two.
Tokens split_whitespace(const std::string& line);

}  // namespace dls::eval

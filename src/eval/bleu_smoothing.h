// NLTK's SmoothingFunction methods 0-7 and Python's math.fsum, for bleu.cpp.
// Private to src/eval.
#pragma once

#include <cstddef>
#include <vector>

#include "dls/eval/bleu.h"

namespace dls::eval::detail {

// NLTK's Fraction(numerator, denominator, _normalize=False): summed counts as they are.
// Methods 1-4 read the raw numerator and denominator, so 2/4 must not turn into 1/2.
struct RawFraction {
  std::size_t numerator = 0;
  std::size_t denominator = 1;
  // Python's float(Fraction): int / int, correctly rounded (exact below 2^53 each).
  double value() const { return static_cast<double>(numerator) / static_cast<double>(denominator); }
};

// What NLTK's corpus_bleu hands the smoothing function besides p_n: the total hypothesis
// length, and (a leak of its loop variables) the last sentence's hypothesis and references.
struct SmoothingContext {
  std::size_t hyp_len = 0;       // total hypothesis length (methods 4, 7)
  std::size_t last_hyp_len = 0;  // length of the last hypothesis (method6's n-gram counts)
  RawFraction last_fivegram;     // modified 5-gram precision of the last sentence (methods 5, 7)
};

// NLTK's smoothing_function(p_n, ...) for options.smoothing: one precision per order,
// as doubles (NLTK returns Fractions and floats; only their values matter afterwards).
// Throws std::invalid_argument where NLTK's method6 raises.
std::vector<double> smooth_precisions(const std::vector<RawFraction>& p_n, const SmoothingContext& context,
                                      const BleuOptions& options);

// Python's math.fsum: the correctly rounded sum of `values` (CPython's algorithm).
double fsum(const std::vector<double>& values);

}  // namespace dls::eval::detail

#include "eval/bleu_smoothing.h"

#include <cmath>
#include <limits>
#include <stdexcept>

// Each method follows NLTK 3.8's SmoothingFunction line by line, with the same operations
// in the same order, so that methods 0-4 give the very same doubles as NLTK. Methods 5-7
// add Fractions exactly in NLTK and round once; here each step rounds (errors ~1e-16).

namespace dls::eval::detail {
namespace {

std::vector<double> values_of(const std::vector<RawFraction>& p_n) {
  std::vector<double> values;
  values.reserve(p_n.size());
  for (const auto& p : p_n) values.push_back(p.value());
  return values;
}

// method0: a zero numerator gives sys.float_info.min, so log() stays finite.
std::vector<double> method0(const std::vector<RawFraction>& p_n) {
  std::vector<double> out = values_of(p_n);
  for (std::size_t i = 0; i < p_n.size(); ++i) {
    if (p_n[i].numerator == 0) out[i] = std::numeric_limits<double>::min();
  }
  return out;
}

// method1: (0 + epsilon) / raw denominator.
std::vector<double> method1(const std::vector<RawFraction>& p_n, double epsilon) {
  std::vector<double> out = values_of(p_n);
  for (std::size_t i = 0; i < p_n.size(); ++i) {
    if (p_n[i].numerator == 0) out[i] = epsilon / static_cast<double>(p_n[i].denominator);
  }
  return out;
}

// method2: (numerator + 1) / (denominator + 1) for every order but the first.
std::vector<double> method2(const std::vector<RawFraction>& p_n) {
  std::vector<double> out = values_of(p_n);
  for (std::size_t i = 1; i < p_n.size(); ++i) {
    out[i] = RawFraction{p_n[i].numerator + 1, p_n[i].denominator + 1}.value();
  }
  return out;
}

// method3: the k-th order without matches gets 1 / (2^k * raw denominator).
std::vector<double> method3(const std::vector<RawFraction>& p_n) {
  std::vector<double> out = values_of(p_n);
  int k = 1;
  for (std::size_t i = 0; i < p_n.size(); ++i) {
    if (p_n[i].numerator != 0) continue;
    out[i] = 1.0 / std::ldexp(static_cast<double>(p_n[i].denominator), k);  // int / int
    ++k;
  }
  return out;
}

// method4: the k-th order without matches gets 1 / (2^k * K / ln(hyp_len)) / denominator,
// where hyp_len is the total hypothesis length (and nothing changes when it is 1).
std::vector<double> method4(const std::vector<RawFraction>& p_n, std::size_t hyp_len, double k_const) {
  std::vector<double> out = values_of(p_n);
  int k = 1;
  for (std::size_t i = 0; i < p_n.size(); ++i) {
    if (p_n[i].numerator != 0 || hyp_len <= 1) continue;
    const double numerator = 1.0 / (std::ldexp(1.0, k) * k_const / std::log(static_cast<double>(hyp_len)));
    out[i] = numerator / static_cast<double>(p_n[i].denominator);
    ++k;
  }
  return out;
}

// method5: p_i <- (m_{i-1} + p_i + p_{i+1}) / 3 with m_{-1} = p_0 + 1, m_i the new p_i,
// and p_{N} the last sentence's 5-gram precision (NLTK always appends order 5, whatever N).
std::vector<double> method5(const std::vector<double>& p, double last_fivegram) {
  std::vector<double> out(p.size());
  double previous = p[0] + 1;
  for (std::size_t i = 0; i < p.size(); ++i) {
    const double next = i + 1 < p.size() ? p[i + 1] : last_fivegram;
    out[i] = (previous + p[i] + next) / 3;
    previous = out[i];
  }
  return out;
}

// method6: for orders >= 3, p_i <- (m_i + alpha * p_{i-1}^2 / p_{i-2}) / (l_i + alpha), with
// m_i the raw match count, l_i the number of (i+1)-grams in the last hypothesis, and
// p_{i-1}, p_{i-2} the values already interpolated.
std::vector<double> method6(const std::vector<RawFraction>& p_n, std::size_t last_hyp_len, double alpha) {
  if (p_n.size() < 3) {
    throw std::invalid_argument(
        "BLEU smoothing method6 needs at least 3 n-gram orders "
        "(NLTK raises IndexError)");
  }
  if (p_n[2].numerator == 0) {
    throw std::invalid_argument(
        "BLEU smoothing method6 needs trigram matches "
        "(NLTK's assertion on p_n[2] fails)");
  }
  std::vector<double> out = values_of(p_n);
  for (std::size_t i = 2; i < p_n.size(); ++i) {
    const double prior = out[i - 2] == 0 ? 0.0 : out[i - 1] * out[i - 1] / out[i - 2];
    const double matched = static_cast<double>(p_n[i].numerator);
    const double ngrams = static_cast<double>(last_hyp_len > i ? last_hyp_len - i : 0);
    out[i] = (matched + alpha * prior) / (ngrams + alpha);
  }
  return out;
}

}  // namespace

std::vector<double> smooth_precisions(const std::vector<RawFraction>& p_n, const SmoothingContext& context,
                                      const BleuOptions& options) {
  switch (options.smoothing) {
    case Smoothing::kNone:
      return method0(p_n);
    case Smoothing::kMethod1:
      return method1(p_n, options.epsilon);
    case Smoothing::kMethod2:
      return method2(p_n);
    case Smoothing::kMethod3:
      return method3(p_n);
    case Smoothing::kMethod4:
      return method4(p_n, context.hyp_len, options.k);
    case Smoothing::kMethod5:
      return method5(values_of(p_n), context.last_fivegram.value());
    case Smoothing::kMethod6:
      return method6(p_n, context.last_hyp_len, options.alpha);
    case Smoothing::kMethod7:
      return method5(method4(p_n, context.hyp_len, options.k), context.last_fivegram.value());
  }
  throw std::invalid_argument("BLEU: unknown smoothing method");
}

double fsum(const std::vector<double>& values) {
  // CPython's math_fsum (Modules/mathmodule.c): exact partial sums, then round once.
  std::vector<double> partials;
  double special_sum = 0.0;  // infinities and NaNs, summed the ordinary way
  for (double x : values) {
    if (!std::isfinite(x)) {
      special_sum += x;
      continue;
    }
    std::size_t used = 0;
    for (double y : partials) {
      if (std::fabs(x) < std::fabs(y)) std::swap(x, y);
      const double hi = x + y;
      const double lo = y - (hi - x);
      if (lo != 0.0) partials[used++] = lo;
      x = hi;
    }
    partials.resize(used);
    if (x != 0.0) {
      if (!std::isfinite(x)) throw std::overflow_error("fsum: intermediate overflow");
      partials.push_back(x);
    }
  }
  if (special_sum != 0.0) return special_sum;  // also true for NaN

  std::size_t n = partials.size();
  if (n == 0) return 0.0;
  double hi = partials[--n];
  double lo = 0.0;
  while (n > 0) {  // add from the top while the sum stays exact
    const double x = hi;
    const double y = partials[--n];
    hi = x + y;
    lo = y - (hi - x);
    if (lo != 0.0) break;
  }
  // Half-even rounding across several partials (CPython's correction).
  if (n > 0 && ((lo < 0.0 && partials[n - 1] < 0.0) || (lo > 0.0 && partials[n - 1] > 0.0))) {
    const double y = lo * 2.0;
    const double x = hi + y;
    if (y == x - hi) hi = x;
  }
  return hi;
}

}  // namespace dls::eval::detail

#include "dls/eval/bleu.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "dls/eval/tokenizer_13a.h"
#include "eval/bleu_counts.h"
#include "eval/bleu_smoothing.h"

namespace dls::eval {
namespace {

using References = std::vector<Tokens>;

// NLTK's corpus_bleu (sentence_bleu is the corpus of one sentence), step by step.
BleuScore score(const std::vector<const References*>& references, const std::vector<const Tokens*>& hypotheses,
                const BleuOptions& options) {
  const std::size_t orders = options.weights.size();
  if (orders == 0) throw std::invalid_argument("BLEU: empty weights (one per n-gram order needed)");
  if (hypotheses.empty()) {
    throw std::invalid_argument("BLEU: no sentences to score (NLTK raises ZeroDivisionError)");
  }
  BleuScore result;
  result.matches.assign(orders, 0);
  result.totals.assign(orders, 0);
  detail::NgramCounter counter;
  for (std::size_t i = 0; i < hypotheses.size(); ++i) {
    const References& refs = *references[i];
    const Tokens& hyp = *hypotheses[i];
    if (refs.empty()) {
      throw std::invalid_argument("BLEU: sentence " + std::to_string(i) + " has no reference (NLTK raises ValueError)");
    }
    counter.add(refs, hyp, result.matches, result.totals);
    result.hyp_len += hyp.size();
    result.ref_len += detail::closest_ref_length(refs, hyp.size());
  }
  result.bp = detail::brevity_penalty(result.ref_len, result.hyp_len);
  result.ratio = result.ref_len == 0 ? 0.0 : static_cast<double>(result.hyp_len) / static_cast<double>(result.ref_len);
  std::vector<detail::RawFraction> p_n(orders);
  for (std::size_t i = 0; i < orders; ++i) {
    p_n[i] = {result.matches[i], result.totals[i]};  // totals >= 1: each sentence adds >= 1
    result.precisions.push_back(p_n[i].value());
  }
  // No unigram matches: NLTK returns 0 before smoothing (so method6 cannot raise then).
  if (result.matches[0] == 0) return result;

  detail::SmoothingContext context;
  context.hyp_len = result.hyp_len;
  context.last_hyp_len = hypotheses.back()->size();
  if (options.smoothing == Smoothing::kMethod5 || options.smoothing == Smoothing::kMethod7) {
    std::vector<std::size_t> matches(5, 0), totals(5, 0);
    counter.add(*references.back(), *hypotheses.back(), matches, totals);
    context.last_fivegram = {matches[4], totals[4]};
  }
  const std::vector<double> p = detail::smooth_precisions(p_n, context, options);

  std::vector<double> weights = options.weights;
  if (options.auto_reweigh && result.hyp_len < 4 && weights == std::vector<double>{0.25, 0.25, 0.25, 0.25}) {
    weights.assign(result.hyp_len, 1.0 / static_cast<double>(result.hyp_len));
  }
  // Python's zip(weight, p_n) stops at the shorter; orders whose precision is 0 are skipped.
  std::vector<double> terms;
  for (std::size_t i = 0; i < std::min(weights.size(), p.size()); ++i) {
    if (p[i] > 0) terms.push_back(weights[i] * std::log(p[i]));
  }
  result.bleu = result.bp * std::exp(detail::fsum(terms));
  return result;
}

}  // namespace

BleuScore sentence_bleu(const std::vector<Tokens>& references, const Tokens& hypothesis, const BleuOptions& options) {
  return score({&references}, {&hypothesis}, options);
}

BleuScore corpus_bleu(const std::vector<std::vector<Tokens>>& references, const std::vector<Tokens>& hypotheses,
                      const BleuOptions& options) {
  if (references.size() != hypotheses.size()) {
    throw std::invalid_argument("corpus_bleu: " + std::to_string(hypotheses.size()) + " hypotheses but " +
                                std::to_string(references.size()) + " reference lists");
  }
  std::vector<const References*> refs;
  std::vector<const Tokens*> hyps;
  refs.reserve(references.size());
  hyps.reserve(hypotheses.size());
  for (std::size_t i = 0; i < hypotheses.size(); ++i) {
    refs.push_back(&references[i]);
    hyps.push_back(&hypotheses[i]);
  }
  return score(refs, hyps, options);
}

const std::vector<std::string>& default_special_tokens() {
  static const std::vector<std::string> specials{"SOS", "EOS", "<pad>"};
  return specials;
}

Tokens strip_special_tokens(const Tokens& tokens, const std::vector<std::string>& specials) {
  Tokens kept;
  kept.reserve(tokens.size());
  for (const auto& token : tokens) {
    if (std::find(specials.begin(), specials.end(), token) == specials.end()) kept.push_back(token);
  }
  return kept;
}

namespace {
const char* const kSmoothingNames[] = {"none",    "method1", "method2", "method3",
                                       "method4", "method5", "method6", "method7"};
}  // namespace

Smoothing parse_smoothing(const std::string& name) {
  if (name == "method0") return Smoothing::kNone;
  for (int i = 0; i < 8; ++i) {
    if (name == kSmoothingNames[i]) return static_cast<Smoothing>(i);
  }
  throw std::invalid_argument("unknown BLEU smoothing '" + name + "' (expected none or method0 .. method7)");
}

std::string smoothing_name(Smoothing smoothing) { return kSmoothingNames[static_cast<int>(smoothing)]; }

Tokens split_whitespace(const std::string& line) { return split_python_whitespace(line); }

}  // namespace dls::eval

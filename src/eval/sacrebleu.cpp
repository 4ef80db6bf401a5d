#include "dls/eval/sacrebleu.h"

#include <algorithm>
#include <set>
#include <stdexcept>

#include <spdlog/fmt/fmt.h>

#include "dls/eval/tokenizer_13a.h"
#include "eval/bleu_counts.h"

namespace dls::eval {

namespace {

// sacreBLEU's my_log: log, with -9999999999 for 0 (an order without matches, unsmoothed).
double sacrebleu_log(double x) { return x == 0 ? -9999999999.0 : std::log(x); }

double smooth_value_of(const SacreBleuOptions& options) {
  if (!std::isnan(options.smooth_value)) return options.smooth_value;
  return options.smoothing == SacreSmoothing::kAddK ? 1.0 : 0.1;
}

std::vector<std::string> tokens_of(const std::string& text, SacreTokenizer tokenizer) {
  // sacreBLEU strips the end of the line before tokenising; both tokenisers then split at
  // whitespace (extract_all_word_ngrams).
  const auto stripped = rstrip_python_whitespace(text);
  return split_python_whitespace(tokenizer == SacreTokenizer::k13a ? tokenize_13a(stripped) : std::string(stripped));
}

}  // namespace

std::string SacreBleuScore::line(bool with_signature) const {
  std::string precision_text;
  for (std::size_t i = 0; i < precisions.size(); ++i) {
    precision_text += fmt::format("{}{:.1f}", i == 0 ? "" : "/", precisions[i]);
  }
  return fmt::format("BLEU{}{} = {:.1f} {} (BP = {:.3f} ratio = {:.3f} hyp_len = {} ref_len = {})",
                     with_signature ? "|" : "", with_signature ? signature : "", score, precision_text, bp, ratio(),
                     sys_len, ref_len);
}

SacreBleuScore sacrebleu_from_statistics(const std::vector<std::size_t>& counts, const std::vector<std::size_t>& totals,
                                         std::size_t sys_len, std::size_t ref_len, const SacreBleuOptions& options) {
  const auto orders = static_cast<std::size_t>(options.max_order);
  if (options.max_order < 1 || counts.size() != orders || totals.size() != orders) {
    throw std::invalid_argument(fmt::format("sacreBLEU: {} counts and {} totals for max order {}", counts.size(),
                                            totals.size(), options.max_order));
  }
  SacreBleuScore result;
  result.counts = counts;
  result.totals = totals;
  result.sys_len = sys_len;
  result.ref_len = ref_len;
  result.precisions.assign(orders, 0.0);
  if (sys_len < ref_len) {
    result.bp = sys_len > 0 ? std::exp(1.0 - static_cast<double>(ref_len) / static_cast<double>(sys_len)) : 0.0;
  } else {
    result.bp = 1.0;
  }
  // No match of any order: 0 before smoothing (sacreBLEU #141).
  if (std::all_of(counts.begin(), counts.end(), [](std::size_t c) { return c == 0; })) return result;

  const double value = smooth_value_of(options);
  double smooth_mteval = 1.0;
  std::size_t effective_order = orders;
  for (std::size_t n = 1; n <= orders; ++n) {
    double correct = static_cast<double>(counts[n - 1]);
    double total = static_cast<double>(totals[n - 1]);
    if (options.smoothing == SacreSmoothing::kAddK && n > 1) {
      correct += value;
      total += value;
    }
    if (total == 0) break;  // the higher orders keep precision 0
    if (options.effective_order) effective_order = n;
    if (correct == 0) {
      if (options.smoothing == SacreSmoothing::kExp) {
        smooth_mteval *= 2;
        result.precisions[n - 1] = 100.0 / (smooth_mteval * total);
      } else if (options.smoothing == SacreSmoothing::kFloor) {
        result.precisions[n - 1] = 100.0 * value / total;
      }
    } else {
      result.precisions[n - 1] = 100.0 * correct / total;
    }
  }
  // Python's sum(): left to right.
  double log_sum = 0;
  for (std::size_t n = 0; n < effective_order; ++n) log_sum += sacrebleu_log(result.precisions[n]);
  result.score = result.bp * std::exp(log_sum / static_cast<double>(effective_order));
  return result;
}

SacreBleuScore sacrebleu_corpus(const std::vector<std::string>& hypotheses,
                                const std::vector<std::vector<std::string>>& references,
                                const SacreBleuOptions& options) {
  if (hypotheses.size() != references.size()) {
    throw std::invalid_argument(
        fmt::format("sacreBLEU: {} hypotheses but {} reference lists", hypotheses.size(), references.size()));
  }
  if (hypotheses.empty()) throw std::invalid_argument("sacreBLEU: no sentences to score");
  if (options.max_order < 1) throw std::invalid_argument("sacreBLEU: max order below 1");
  const auto orders = static_cast<std::size_t>(options.max_order);
  std::vector<std::size_t> counts(orders, 0), totals(orders, 0), nltk_totals(orders, 0);
  std::size_t sys_len = 0, ref_len = 0;
  detail::NgramCounter counter;  // clipped matches against the most generous reference, as NLTK
  std::vector<std::vector<std::string>> refs;
  for (std::size_t i = 0; i < hypotheses.size(); ++i) {
    refs.clear();
    for (const auto& ref : references[i]) {
      if (!ref.empty()) refs.push_back(tokens_of(ref, options.tokenizer));
    }
    const auto hyp = tokens_of(hypotheses[i], options.tokenizer);
    if (!refs.empty()) counter.add(refs, hyp, counts, nltk_totals);
    // sacreBLEU's totals are the n-grams the hypothesis has (NLTK's are at least 1).
    for (std::size_t n = 1; n <= orders; ++n) totals[n - 1] += hyp.size() >= n ? hyp.size() - n + 1 : 0;
    sys_len += hyp.size();
    ref_len += refs.empty() ? 0 : detail::closest_ref_length(refs, hyp.size());
  }
  auto result = sacrebleu_from_statistics(counts, totals, sys_len, ref_len, options);
  result.signature = sacrebleu_signature(options, reference_count_label(references));
  return result;
}

std::string sacrebleu_signature(const SacreBleuOptions& options, const std::string& nrefs) {
  std::string smooth;
  switch (options.smoothing) {
    case SacreSmoothing::kNone:
      smooth = "none";
      break;
    case SacreSmoothing::kFloor:
      smooth = fmt::format("floor[{:.2f}]", smooth_value_of(options));
      break;
    case SacreSmoothing::kAddK:
      smooth = fmt::format("add-k[{:.2f}]", smooth_value_of(options));
      break;
    case SacreSmoothing::kExp:
      smooth = "exp";
      break;
  }
  return fmt::format("nrefs:{}|case:{}|eff:{}|tok:{}|smooth:{}|version:dls-cpp", nrefs,
                     options.lowercased_text ? "lc" : "mixed", options.effective_order ? "yes" : "no",
                     options.tokenizer == SacreTokenizer::k13a ? "13a" : "none", smooth);
}

std::string reference_count_label(const std::vector<std::vector<std::string>>& references) {
  std::set<std::size_t> sizes;
  for (const auto& refs : references) {
    sizes.insert(static_cast<std::size_t>(
        std::count_if(refs.begin(), refs.end(), [](const std::string& r) { return !r.empty(); })));
  }
  return sizes.size() == 1 ? std::to_string(*sizes.begin()) : "var";
}

}  // namespace dls::eval

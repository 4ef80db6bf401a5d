#include "dls/eval/chrf.h"

#include <stdexcept>
#include <string_view>
#include <unordered_map>

#include <spdlog/fmt/fmt.h>

#include "dls/eval/sacrebleu.h"
#include "dls/eval/tokenizer_13a.h"
#include "dls/util/utf8.h"

namespace dls::eval {

namespace {

// The code points n-grams are taken from: without Python whitespace unless it is kept.
std::u32string characters_of(const std::string& text, bool keep_whitespace) {
  std::u32string out;
  for (const char32_t c : util::decode_utf8(text)) {
    if (keep_whitespace || !is_python_whitespace(c)) out.push_back(c);
  }
  return out;
}

// The statistics of one hypothesis against one reference (CHRF._get_match_statistics for
// every order). `remaining` is scratch space: reference n-gram -> count not yet matched.
std::vector<ChrfOrderCounts> sentence_statistics(const std::u32string& hyp, const std::u32string& ref, int char_order,
                                                 std::unordered_map<std::u32string_view, std::size_t>& remaining) {
  std::vector<ChrfOrderCounts> orders(static_cast<std::size_t>(char_order));
  const std::u32string_view h(hyp), r(ref);
  for (std::size_t n = 1; n <= orders.size(); ++n) {
    auto& o = orders[n - 1];
    remaining.clear();
    for (std::size_t i = 0; i + n <= r.size(); ++i) ++remaining[r.substr(i, n)];
    o.reference = r.size() >= n ? r.size() - n + 1 : 0;
    // sacreBLEU counts no hypothesis n-grams against a reference without any of this order.
    o.hypothesis = o.reference > 0 && h.size() >= n ? h.size() - n + 1 : 0;
    for (std::size_t i = 0; o.reference > 0 && i + n <= h.size(); ++i) {
      const auto it = remaining.find(h.substr(i, n));
      if (it != remaining.end() && it->second > 0) {  // sum over n-grams of min(hyp count, ref count)
        --it->second;
        ++o.matched;
      }
    }
  }
  return orders;
}

}  // namespace

std::string ChrfScore::line(bool with_signature) const {
  return fmt::format("chrF{}{}{} = {:.1f}", beta, with_signature ? "|" : "", with_signature ? signature : "", score);
}

double chrf_from_statistics(const std::vector<ChrfOrderCounts>& orders, const ChrfOptions& options) {
  constexpr double kEps = 1e-16;
  const double factor = static_cast<double>(options.beta) * options.beta;
  double f_sum = 0, precision_sum = 0, recall_sum = 0;
  int effective_order = 0;
  for (const auto& o : orders) {
    const double precision =
        o.hypothesis > 0 ? static_cast<double>(o.matched) / static_cast<double>(o.hypothesis) : kEps;
    const double recall = o.reference > 0 ? static_cast<double>(o.matched) / static_cast<double>(o.reference) : kEps;
    const double denominator = factor * precision + recall;
    f_sum += denominator > 0 ? (1 + factor) * precision * recall / denominator : kEps;
    if (o.hypothesis > 0 && o.reference > 0) {
      precision_sum += precision;
      recall_sum += recall;
      ++effective_order;
    }
  }
  if (options.eps_smoothing) return 100 * f_sum / static_cast<double>(orders.size());
  if (effective_order == 0) return 0.0;
  const double precision = precision_sum / effective_order, recall = recall_sum / effective_order;
  if (precision + recall == 0) return 0.0;
  return 100 * ((1 + factor) * precision * recall / (factor * precision + recall));
}

ChrfScore corpus_chrf(const std::vector<std::string>& hypotheses,
                      const std::vector<std::vector<std::string>>& references, const ChrfOptions& options) {
  if (hypotheses.size() != references.size()) {
    throw std::invalid_argument(
        fmt::format("chrF: {} hypotheses but {} reference lists", hypotheses.size(), references.size()));
  }
  if (hypotheses.empty()) throw std::invalid_argument("chrF: no sentences to score");
  if (options.char_order < 1) throw std::invalid_argument("chrF: character order below 1");
  ChrfScore result;
  result.beta = options.beta;
  result.orders.assign(static_cast<std::size_t>(options.char_order), {});
  std::unordered_map<std::u32string_view, std::size_t> remaining;
  for (std::size_t i = 0; i < hypotheses.size(); ++i) {
    const auto hyp = characters_of(hypotheses[i], options.whitespace);
    std::vector<ChrfOrderCounts> best;
    double best_f = -1;
    for (const auto& reference : references[i]) {
      if (reference.empty()) continue;
      auto stats =
          sentence_statistics(hyp, characters_of(reference, options.whitespace), options.char_order, remaining);
      const double f = chrf_from_statistics(stats, options);
      if (f > best_f) {
        best_f = f;
        best = std::move(stats);
      }
    }
    for (std::size_t n = 0; n < best.size(); ++n) {
      result.orders[n].hypothesis += best[n].hypothesis;
      result.orders[n].reference += best[n].reference;
      result.orders[n].matched += best[n].matched;
    }
  }
  result.score = chrf_from_statistics(result.orders, options);
  result.signature = chrf_signature(options, reference_count_label(references));
  return result;
}

std::string chrf_signature(const ChrfOptions& options, const std::string& nrefs) {
  return fmt::format("nrefs:{}|case:{}|eff:{}|nc:{}|nw:0|space:{}|version:dls-cpp", nrefs,
                     options.lowercased_text ? "lc" : "mixed", options.eps_smoothing ? "no" : "yes", options.char_order,
                     options.whitespace ? "yes" : "no");
}

}  // namespace dls::eval

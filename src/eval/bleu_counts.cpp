#include "eval/bleu_counts.h"

#include <algorithm>
#include <cmath>

namespace dls::eval::detail {

void NgramCounter::add(const std::vector<std::vector<std::string>>& references,
                       const std::vector<std::string>& hypothesis, std::vector<std::size_t>& matches,
                       std::vector<std::size_t>& totals) {
  const std::size_t orders = matches.size();
  const std::size_t hyp_len = hypothesis.size();
  tokens_.clear();
  hyp_tokens_.clear();
  for (const auto& token : hypothesis) hyp_tokens_.push_back(tokens_.insert(token));
  // A reference token that is not in the hypothesis is kAbsent: no n-gram through it counts.
  ref_tokens_.clear();
  for (const auto& reference : references) {
    for (const auto& token : reference) ref_tokens_.push_back(tokens_.find(token));
  }
  hyp_level_.resize(hyp_len);
  ref_level_.resize(ref_tokens_.size());

  for (std::size_t n = 1; n <= orders; ++n) {
    if (hyp_len < n) {  // no n-grams: NLTK's precision 0/1 for this and every higher order
      for (std::size_t k = n; k <= orders; ++k) totals[k - 1] += 1;
      return;
    }
    const std::size_t count = hyp_len - n + 1;  // n-grams in the hypothesis
    // Key of the n-gram at j: (id of the (n-1)-gram at j, token j+n-1); for n = 1 the token.
    // Its id (0 .. distinct-1) replaces hyp_level_[j] in place.
    ngrams_.clear();
    hyp_counts_.clear();
    for (std::size_t j = 0; j < count; ++j) {
      const std::uint64_t last = hyp_tokens_[j + n - 1];
      const std::uint32_t id = ngrams_.insert(n == 1 ? last : (static_cast<std::uint64_t>(hyp_level_[j]) << 32) | last);
      if (id == hyp_counts_.size()) hyp_counts_.push_back(0);
      ++hyp_counts_[id];
      hyp_level_[j] = id;
    }
    const std::size_t num_distinct = ngrams_.size();
    ref_counts_.assign(num_distinct, 0);
    max_ref_counts_.assign(num_distinct, 0);

    // References: the id of each of their n-grams among the hypothesis n-grams (in place:
    // ref_level_[j] at order n needs only ref_level_[j] at order n-1 and one token).
    std::size_t offset = 0;
    for (const auto& reference : references) {
      const std::size_t ref_len = reference.size();
      if (ref_len >= n) {
        for (std::size_t j = offset; j + n <= offset + ref_len; ++j) {
          const std::uint32_t last = ref_tokens_[j + n - 1];
          std::uint32_t id = kAbsent;
          if (n == 1) {
            if (last != kAbsent) id = ngrams_.find(last);
          } else if (ref_level_[j] != kAbsent && last != kAbsent) {
            id = ngrams_.find((static_cast<std::uint64_t>(ref_level_[j]) << 32) | last);
          }
          ref_level_[j] = id;
          if (id != kAbsent) ++ref_counts_[id];
        }
        for (std::size_t i = 0; i < num_distinct; ++i) {
          max_ref_counts_[i] = std::max(max_ref_counts_[i], ref_counts_[i]);
          ref_counts_[i] = 0;
        }
      }
      offset += ref_len;
    }

    std::size_t clipped = 0;
    for (std::size_t i = 0; i < num_distinct; ++i) {
      clipped += std::min(hyp_counts_[i], max_ref_counts_[i]);
    }
    matches[n - 1] += clipped;
    totals[n - 1] += count;
    if (clipped == 0) {
      // No reference holds any hypothesis n-gram, so none holds a longer one: only the
      // hypothesis counts of the higher orders remain to be added.
      for (std::size_t k = n + 1; k <= orders; ++k) totals[k - 1] += hyp_len >= k ? hyp_len - k + 1 : 1;
      return;
    }
  }
}

std::size_t closest_ref_length(const std::vector<std::vector<std::string>>& references, std::size_t hyp_len) {
  auto distance = [hyp_len](std::size_t len) { return len > hyp_len ? len - hyp_len : hyp_len - len; };
  std::size_t best = references.at(0).size();
  for (const auto& reference : references) {
    const std::size_t len = reference.size();
    if (distance(len) < distance(best) || (distance(len) == distance(best) && len < best)) best = len;
  }
  return best;
}

double brevity_penalty(std::size_t ref_len, std::size_t hyp_len) {
  if (hyp_len > ref_len) return 1.0;
  if (hyp_len == 0) return 0.0;
  return std::exp(1.0 - static_cast<double>(ref_len) / static_cast<double>(hyp_len));
}

}  // namespace dls::eval::detail

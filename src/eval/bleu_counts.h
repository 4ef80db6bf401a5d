// N-gram counting for BLEU: NLTK's modified_precision numerators and denominators.
// Private to src/eval.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "eval/dense_id_map.h"

namespace dls::eval::detail {

// Counts clipped n-gram matches sentence by sentence. The hypothesis' distinct tokens are
// numbered (one string hash per token, hypothesis and references); an n-gram is then
// identified by (id of its (n-1)-gram prefix, id of its last token) packed in 64 bits, and
// numbered among the hypothesis' n-grams by an integer hash map. No string is built or
// hashed per n-gram, every step is linear in the sentence lengths, and the small tables
// are reused from sentence to sentence.
class NgramCounter {
 public:
  // For n = 1..matches.size(), adds NLTK's modified_precision(references, hypothesis, n)
  // to matches[n-1] (its numerator: clipped matches) and totals[n-1] (its denominator:
  // max(1, number of n-grams in the hypothesis)). Both vectors must have the same size.
  void add(const std::vector<std::vector<std::string>>& references, const std::vector<std::string>& hypothesis,
           std::vector<std::size_t>& matches, std::vector<std::size_t>& totals);

 private:
  struct IdentityHash {
    std::uint64_t operator()(std::uint64_t key) const { return key; }
  };
  static constexpr std::uint32_t kAbsent = DenseIdMap<std::uint64_t, IdentityHash>::kAbsent;

  DenseIdMap<std::string_view> tokens_;             // hypothesis token -> id, one sentence
  DenseIdMap<std::uint64_t, IdentityHash> ngrams_;  // hypothesis n-gram key -> id, one order
  // Scratch space reused between sentences (no allocation once warm).
  std::vector<std::uint32_t> hyp_tokens_;  // token ids of the hypothesis
  std::vector<std::uint32_t> hyp_level_;   // [j]: id of the n-gram starting at j, this order
  std::vector<std::uint32_t> ref_tokens_;  // all references' token ids, concatenated
  std::vector<std::uint32_t> ref_level_;   // like hyp_level_, kAbsent: not a hypothesis n-gram
  std::vector<std::size_t> hyp_counts_, ref_counts_, max_ref_counts_;  // indexed by n-gram id
};

// NLTK's closest_ref_length: the reference length nearest to hyp_len, the shorter on ties.
std::size_t closest_ref_length(const std::vector<std::vector<std::string>>& references, std::size_t hyp_len);

// NLTK's brevity_penalty: 1 when hyp_len > ref_len, 0 when hyp_len = 0, else
// exp(1 - ref_len / hyp_len).
double brevity_penalty(std::size_t ref_len, std::size_t hyp_len);

}  // namespace dls::eval::detail

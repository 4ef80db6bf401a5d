#include "dls/data/pair_tensors.h"

#include <numeric>

#include <torch/torch.h>

#include "dls/util/memory_check.h"
#include "dls/util/random.h"

namespace dls::data {

void check_token_rows_fit(std::size_t rows, int max_len) {
  util::check_fits_in_memory(
      16.0 * static_cast<double>(rows) * max_len,
      "the token rows (" + std::to_string(rows) + " rows of L = " + std::to_string(max_len) + " tokens)",
      "lower --max-words, or shorten the corpus's longest sentences");
}

EncodedPairs encode_pairs(const std::vector<SentencePair>& pairs, const std::vector<std::size_t>& indices,
                          const Vocabulary& english, const Vocabulary& spanish, int max_len,
                          Vocabulary::Padding padding) {
  std::vector<std::size_t> rows = indices;
  if (rows.empty()) {
    rows.resize(pairs.size());
    std::iota(rows.begin(), rows.end(), std::size_t{0});
  }
  const auto n = static_cast<std::int64_t>(rows.size());
  EncodedPairs encoded;
  encoded.src = torch::empty({n, max_len}, torch::kLong);
  encoded.tgt = torch::empty({n, max_len}, torch::kLong);
  auto* src = encoded.src.data_ptr<std::int64_t>();
  auto* tgt = encoded.tgt.data_ptr<std::int64_t>();
  std::vector<std::string> unknown;
  for (std::int64_t i = 0; i < n; ++i) {
    const auto& pair = pairs.at(rows[static_cast<std::size_t>(i)]);
    unknown.clear();
    const auto s = english.encode(pair.english, max_len, padding, &unknown);
    encoded.unknown_src += static_cast<std::int64_t>(unknown.size());
    unknown.clear();
    const auto t = spanish.encode(pair.spanish, max_len, padding, &unknown);
    encoded.unknown_tgt += static_cast<std::int64_t>(unknown.size());
    std::copy(s.begin(), s.end(), src + i * max_len);
    std::copy(t.begin(), t.end(), tgt + i * max_len);
  }
  return encoded;
}

std::vector<std::int64_t> epoch_order(std::int64_t n, std::uint64_t seed, std::int64_t epoch) {
  std::vector<std::int64_t> order(static_cast<std::size_t>(n));
  std::iota(order.begin(), order.end(), std::int64_t{0});
  util::Rng rng(util::derive_seed(seed, static_cast<std::uint64_t>(epoch), 0x5eed));
  util::shuffle(order, rng);
  return order;
}

torch::Tensor batch_indices(const std::vector<std::int64_t>& order, std::int64_t start, std::int64_t size) {
  return torch::tensor(std::vector<std::int64_t>(order.begin() + start, order.begin() + start + size), torch::kLong);
}

}  // namespace dls::data

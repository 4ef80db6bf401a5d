#include "dls/data/token_batches.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "dls/data/length_buckets.h"
#include "dls/util/random.h"

namespace dls::data {

std::vector<std::int64_t> longer_side_lengths(const EncodedPairs& pairs, std::int64_t pad_index) {
  const auto src = token_counts(pairs.src, pad_index), tgt = token_counts(pairs.tgt, pad_index);
  std::vector<std::int64_t> lengths(src.size());
  for (std::size_t i = 0; i < src.size(); ++i) lengths[i] = std::max(src[i], tgt[i]);
  return lengths;
}

std::vector<std::vector<std::int64_t>> plan_token_batches(const std::vector<std::int64_t>& lengths,
                                                          std::int64_t max_tokens, std::uint64_t seed) {
  const auto longest = lengths.empty() ? 0 : *std::max_element(lengths.begin(), lengths.end());
  if (longest > max_tokens) {
    throw std::invalid_argument("--max-tokens " + std::to_string(max_tokens) + " is less than the longest pair's " +
                                std::to_string(longest) + " tokens (SOS and EOS included)");
  }
  // Equal lengths in a random order of their own (a stream of the seed no epoch uses).
  util::Rng rng(util::derive_seed(seed, 0x70cb));
  const auto shuffled = util::random_permutation(lengths.size(), rng);
  std::vector<std::int64_t> order(shuffled.begin(), shuffled.end());
  std::stable_sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) {
    return lengths[static_cast<std::size_t>(a)] < lengths[static_cast<std::size_t>(b)];
  });
  std::vector<std::vector<std::int64_t>> batches;
  std::vector<std::int64_t> batch;
  for (const auto i : order) {
    // Ascending lengths: the newcomer is the batch's longest.
    const auto width = lengths[static_cast<std::size_t>(i)];
    if (!batch.empty() && static_cast<std::int64_t>(batch.size() + 1) * width > max_tokens) {
      batches.push_back(std::move(batch));
      batch.clear();
    }
    batch.push_back(i);
  }
  if (!batch.empty()) batches.push_back(std::move(batch));
  return batches;
}

std::vector<std::int64_t> token_batch_order(std::size_t batches, std::uint64_t seed, std::int64_t epoch) {
  util::Rng rng(util::derive_seed(seed, static_cast<std::uint64_t>(epoch), 0x70cc));
  const auto permutation = util::random_permutation(batches, rng);
  return {permutation.begin(), permutation.end()};
}

std::vector<std::int64_t> rank_share(const std::vector<std::int64_t>& batch, int world_size, int rank) {
  std::vector<std::int64_t> mine;
  for (std::size_t p = static_cast<std::size_t>(rank); p < batch.size(); p += static_cast<std::size_t>(world_size)) {
    mine.push_back(batch[p]);
  }
  return mine;
}

}  // namespace dls::data

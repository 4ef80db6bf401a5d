// Length-bucketed epoch orders: every pair once per epoch, batches of similar lengths in a
// random order, reproducible from (seed, epoch).
#include "dls/data/length_buckets.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

#include <torch/torch.h>

#include "dls/data/pair_tensors.h"

namespace dls::data {
namespace {

// n pairs of lengths 3..22, drawn from a fixed pattern.
std::vector<std::int64_t> lengths(std::int64_t n) {
  std::vector<std::int64_t> out;
  for (std::int64_t i = 0; i < n; ++i) out.push_back(3 + (i * 7919) % 20);
  return out;
}

// Σ over batches of (longest - shortest) length in the batch.
std::int64_t spread(const std::vector<std::int64_t>& order, const std::vector<std::int64_t>& len, std::int64_t batch) {
  std::int64_t total = 0;
  for (std::size_t start = 0; start < order.size(); start += static_cast<std::size_t>(batch)) {
    const auto end = std::min(order.size(), start + static_cast<std::size_t>(batch));
    std::int64_t lo = 1000, hi = 0;
    for (auto k = start; k < end; ++k) {
      lo = std::min(lo, len[static_cast<std::size_t>(order[k])]);
      hi = std::max(hi, len[static_cast<std::size_t>(order[k])]);
    }
    total += hi - lo;
  }
  return total;
}

TEST(LengthBuckets, EveryPairOncePerEpoch) {
  const auto len = lengths(1003);  // 15 full batches of 64 and a short one of 43
  for (const std::int64_t epoch : {1, 2, 3}) {
    auto order = bucketed_epoch_order(len, 64, 7, epoch, 4);
    ASSERT_EQ(order.size(), len.size());
    std::sort(order.begin(), order.end());
    std::vector<std::int64_t> all(len.size());
    std::iota(all.begin(), all.end(), std::int64_t{0});
    EXPECT_EQ(order, all) << "epoch " << epoch;
  }
}

TEST(LengthBuckets, BatchesHoldSimilarLengthsInARandomOrder) {
  const auto len = lengths(1003);
  const auto plain = epoch_order(static_cast<std::int64_t>(len.size()), 7, 1);
  const auto one = bucketed_epoch_order(len, 64, 7, 1, 4);
  EXPECT_LT(spread(one, len, 64), spread(plain, len, 64) / 3) << "bucketed batches pad far less";
  EXPECT_EQ(one, bucketed_epoch_order(len, 64, 7, 1, 4)) << "reproducible from (seed, epoch)";
  const auto two = bucketed_epoch_order(len, 64, 7, 2, 4);
  EXPECT_NE(one, two) << "another epoch, another order";
  // Batch lengths are not sorted across the epoch: the batches come shuffled.
  std::vector<std::int64_t> firsts;
  for (std::size_t k = 0; k + 64 <= one.size(); k += 64) firsts.push_back(len[static_cast<std::size_t>(one[k])]);
  EXPECT_FALSE(std::is_sorted(firsts.begin(), firsts.end()));
}

TEST(LengthBuckets, TokenCountsAndUsedColumns) {
  const auto tokens = torch::tensor({1, 5, 6, 2, 0, 0, 1, 7, 2, 0, 0, 0}, torch::kLong).view({2, 6});
  EXPECT_EQ(token_counts(tokens, 0), (std::vector<std::int64_t>{4, 3}));
  EXPECT_EQ(used_columns(tokens, 0), 4);
  EXPECT_EQ(used_columns(torch::zeros({2, 6}, torch::kLong), 0), 1);
}

}  // namespace
}  // namespace dls::data

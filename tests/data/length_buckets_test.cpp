// Length-bucketed epoch orders: every pair once per epoch, batches of similar lengths in a
// random order, reproducible from (seed, epoch).
#include "dls/data/length_buckets.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

#include <torch/torch.h>

#include "dls/data/pair_tensors.h"
#include "support/pattern_lengths.h"

namespace dls::data {
namespace {

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
  const auto len = testing::pattern_lengths(1003, 20);  // 15 full batches of 64 and a short one of 43
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
  const auto len = testing::pattern_lengths(1003, 20);
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

TEST(StaticShapes, WidthsAreMultiplesOfTheStepUpToL) {
  EXPECT_EQ(static_width(1, 10), 4);
  EXPECT_EQ(static_width(4, 10), 4);
  EXPECT_EQ(static_width(5, 10), 8);
  EXPECT_EQ(static_width(9, 10), 10);
  EXPECT_EQ(static_width(10, 10), 10);
  EXPECT_EQ(static_width(0, 10), 4);
  EXPECT_EQ(static_width(3, 3), 3);
}

TEST(StaticShapes, MaskedRowsHoldTheFillerSourceAndAnSosThenPadTarget) {
  const auto src = torch::tensor({1, 5, 2, 0, 1, 6, 7, 2}, torch::kLong).view({2, 4});
  const auto tgt = torch::tensor({1, 8, 2, 0, 1, 9, 2, 0}, torch::kLong).view({2, 4});
  const auto [s, t] = pad_rows_masked(src, tgt, 4, src[1], tgt[1], 0);
  ASSERT_EQ(s.sizes(), (std::vector<std::int64_t>{4, 4}));
  ASSERT_EQ(t.sizes(), (std::vector<std::int64_t>{4, 4}));
  EXPECT_TRUE(torch::equal(s.narrow(0, 0, 2), src));
  EXPECT_TRUE(torch::equal(t.narrow(0, 0, 2), tgt));
  for (const std::int64_t row : {2, 3}) {
    EXPECT_TRUE(torch::equal(s[row], src[1])) << row;
    EXPECT_TRUE(torch::equal(t[row], torch::tensor({1, 0, 0, 0}, torch::kLong))) << row;
  }
  // A full batch is returned as it is; more rows than asked for is refused.
  EXPECT_TRUE(torch::equal(pad_rows_masked(src, tgt, 2, src[0], tgt[0], 0).first, src));
  EXPECT_THROW(pad_rows_masked(src, tgt, 1, src[0], tgt[0], 0), c10::Error);
}

}  // namespace
}  // namespace dls::data

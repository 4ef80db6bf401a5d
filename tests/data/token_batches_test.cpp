// Token-budget batches: within the budget, every pair once per epoch, similar lengths together,
// the same plan from the same seed, epochs in their own orders, and rank shares that partition
// a batch.
#include "dls/data/token_batches.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>

#include <torch/torch.h>

#include "support/pattern_lengths.h"

namespace dls::data {
namespace {

TEST(TokenBatches, EveryPairOnceWithinTheBudget) {
  const auto len = testing::pattern_lengths(1000, 10);
  const auto batches = plan_token_batches(len, 120, 7);
  std::vector<int> seen(len.size(), 0);
  std::size_t most = 0, fewest = 1000;
  for (const auto& batch : batches) {
    std::int64_t longest = 0;
    for (const auto i : batch) {
      ++seen[static_cast<std::size_t>(i)];
      longest = std::max(longest, len[static_cast<std::size_t>(i)]);
    }
    EXPECT_LE(static_cast<std::int64_t>(batch.size()) * longest, 120);
    most = std::max(most, batch.size());
    fewest = std::min(fewest, batch.size());
  }
  EXPECT_TRUE(std::all_of(seen.begin(), seen.end(), [](int n) { return n == 1; }));
  EXPECT_EQ(most, 40u) << "length-3 pairs, 40 to a batch";
  EXPECT_LE(fewest, 10u) << "length-12 pairs, at most 10 to a batch";
}

TEST(TokenBatches, TheSamePlanFromTheSameSeedAndEpochsInTheirOwnOrder) {
  const auto len = testing::pattern_lengths(500, 10);
  EXPECT_EQ(plan_token_batches(len, 64, 1), plan_token_batches(len, 64, 1));
  EXPECT_NE(plan_token_batches(len, 64, 1), plan_token_batches(len, 64, 2)) << "ties drawn from the seed";
  const auto k = plan_token_batches(len, 64, 1).size();
  const auto first = token_batch_order(k, 1, 1), again = token_batch_order(k, 1, 1),
             second = token_batch_order(k, 1, 2);
  EXPECT_EQ(first, again);
  EXPECT_NE(first, second);
  auto sorted = first;
  std::sort(sorted.begin(), sorted.end());
  for (std::size_t i = 0; i < sorted.size(); ++i) EXPECT_EQ(sorted[i], static_cast<std::int64_t>(i));
}

TEST(TokenBatches, ALongerPairThanTheBudgetIsRefused) {
  try {
    plan_token_batches({5, 30, 7}, 20, 0);
    FAIL() << "expected an error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("--max-tokens 20 is less than the longest pair's 30 tokens"),
              std::string::npos)
        << e.what();
  }
}

TEST(TokenBatches, RankSharesPartitionABatch) {
  const std::vector<std::int64_t> batch{10, 11, 12, 13, 14};
  EXPECT_EQ(rank_share(batch, 2, 0), (std::vector<std::int64_t>{10, 12, 14}));
  EXPECT_EQ(rank_share(batch, 2, 1), (std::vector<std::int64_t>{11, 13}));
  EXPECT_TRUE(rank_share({10}, 2, 1).empty());
}

TEST(TokenBatches, LengthsAreEachPairsLongerSide) {
  EncodedPairs pairs;
  // SOS=1 ... EOS=2, <pad>=0 here.
  pairs.src = torch::tensor({1, 5, 2, 0, 0, 1, 5, 6, 7, 2}, torch::kInt64).view({2, 5});
  pairs.tgt = torch::tensor({1, 5, 6, 2, 0, 1, 2, 0, 0, 0}, torch::kInt64).view({2, 5});
  EXPECT_EQ(longer_side_lengths(pairs, 0), (std::vector<std::int64_t>{4, 5}));
}

}  // namespace
}  // namespace dls::data

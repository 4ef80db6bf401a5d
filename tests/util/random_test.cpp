#include "dls/util/random.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

namespace dls::util {
namespace {

TEST(Random, SplitMix64ReferenceSequence) {
  // Published SplitMix64 outputs for seed 1234567 (Rosetta Code, "Pseudo-random
  // numbers/Splitmix64"), the same as Vigna's C reference code gives.
  Rng rng(1234567);
  const std::vector<std::uint64_t> expected = {6457827717110365317ULL, 3203168211198807973ULL, 9817491932198370423ULL,
                                               4593380528125082431ULL, 16408922859458223821ULL};
  for (const std::uint64_t value : expected) EXPECT_EQ(rng.next_u64(), value);
}

TEST(Random, BelowIsInRangeAndUniform) {
  Rng rng(7);
  EXPECT_EQ(rng.below(1), 0U);
  constexpr int kBuckets = 10;
  constexpr int kDraws = 100000;
  std::vector<int> counts(kBuckets, 0);
  for (int i = 0; i < kDraws; ++i) {
    const std::uint64_t v = rng.below(kBuckets);
    ASSERT_LT(v, static_cast<std::uint64_t>(kBuckets));
    ++counts[v];
  }
  // Binomial(100000, 0.1): standard deviation ≈ 95; 6 sigma never fails by chance.
  for (const int count : counts) EXPECT_NEAR(count, kDraws / kBuckets, 600);
  // A bound just above 2^63 rejects almost half of the raw draws; results stay in range.
  const std::uint64_t big = (std::uint64_t{1} << 63) + 1;
  for (int i = 0; i < 100; ++i) EXPECT_LT(rng.below(big), big);
}

TEST(Random, UniformIsInUnitInterval) {
  Rng rng(3);
  double sum = 0.0;
  for (int i = 0; i < 10000; ++i) {
    const double u = rng.uniform();
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
    sum += u;
  }
  EXPECT_NEAR(sum / 10000, 0.5, 0.02);
}

TEST(Random, ShuffleMatchesTheReferenceAlgorithm) {
  // Expected order from an independent Python transcription of SplitMix64, the rejection
  // draw and the Fisher–Yates loop described in random.h (seed 42, n = 10).
  Rng rng(42);
  const std::vector<std::size_t> expected = {0, 9, 5, 8, 6, 4, 7, 2, 1, 3};
  EXPECT_EQ(random_permutation(10, rng), expected);
}

TEST(Random, PermutationHoldsEveryIndexOnce) {
  Rng rng(11);
  std::vector<std::size_t> order = random_permutation(1000, rng);
  std::vector<std::size_t> sorted = order;
  std::sort(sorted.begin(), sorted.end());
  for (std::size_t i = 0; i < sorted.size(); ++i) ASSERT_EQ(sorted[i], i);
  EXPECT_NE(order, sorted);  // 1000! orders: the identity means the shuffle did nothing
  EXPECT_TRUE(random_permutation(0, rng).empty());
}

TEST(Random, DerivedSeedsDependOnEveryArgument) {
  EXPECT_EQ(derive_seed(7, 3, 5), 9466341932987868792ULL);  // Python transcription
  EXPECT_NE(derive_seed(7, 3, 5), derive_seed(7, 5, 3));
  EXPECT_NE(derive_seed(7, 3, 5), derive_seed(8, 3, 5));
  EXPECT_NE(derive_seed(7, 3, 5), derive_seed(7, 3, 6));
  EXPECT_EQ(derive_seed(7, 3), derive_seed(7, 3, 0));
}

}  // namespace
}  // namespace dls::util

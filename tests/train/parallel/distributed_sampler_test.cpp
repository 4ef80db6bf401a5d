#include "dls/train/parallel/distributed_sampler.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <numeric>
#include <stdexcept>

#include <torch/torch.h>

#include "dls/data/image_loader.h"
#include "dls/data/pair_tensors.h"

namespace dls::train {
namespace {

std::vector<std::int64_t> sampler_union(std::vector<std::vector<std::int64_t>> shares) {
  std::vector<std::int64_t> all;
  for (const auto& share : shares) all.insert(all.end(), share.begin(), share.end());
  std::sort(all.begin(), all.end());
  return all;
}

std::vector<std::int64_t> sampler_iota(std::int64_t begin, std::int64_t end) {
  std::vector<std::int64_t> v(static_cast<std::size_t>(end - begin));
  std::iota(v.begin(), v.end(), begin);
  return v;
}

// Shares of every global batch and of the whole epoch: disjoint, together the batch or the
// epoch exactly, sizes within one of each other; for uneven N and batches too.
TEST(DistributedSampler, SharesAreDisjointCoverEverythingAndDifferByAtMostOne) {
  for (const std::int64_t n : {0, 1, 7, 10, 23, 100}) {
    for (const std::int64_t batch : {1, 3, 4, 10, 32}) {
      for (int world = 1; world <= 5; ++world) {
        const auto where = "N " + std::to_string(n) + ", B " + std::to_string(batch) + ", W " + std::to_string(world);
        std::vector<std::vector<std::int64_t>> epoch(static_cast<std::size_t>(world));
        const DistributedSampler first(n, batch, world, 0);
        for (std::int64_t s = 0; s < first.steps_per_epoch(); ++s) {
          std::vector<std::vector<std::int64_t>> step;
          for (int r = 0; r < world; ++r) step.push_back(DistributedSampler(n, batch, world, r).positions(s));
          const auto begin = first.global_begin(s);
          EXPECT_EQ(sampler_union(step), sampler_iota(begin, begin + first.global_count(s))) << where << ", step " << s;
          const auto [smallest, largest] = std::minmax_element(
              step.begin(), step.end(), [](const auto& a, const auto& b) { return a.size() < b.size(); });
          EXPECT_LE(largest->size() - smallest->size(), 1u) << where << ", step " << s;
        }
        for (int r = 0; r < world; ++r)
          epoch[static_cast<std::size_t>(r)] = DistributedSampler(n, batch, world, r).epoch_positions();
        EXPECT_EQ(sampler_union(epoch), sampler_iota(0, n)) << where;
        const auto [smallest, largest] = std::minmax_element(
            epoch.begin(), epoch.end(), [](const auto& a, const auto& b) { return a.size() < b.size(); });
        EXPECT_LE(largest->size() - smallest->size(), 1u) << where;
      }
    }
  }
}

TEST(DistributedSampler, GlobalBatchesAsOneProcessCutsThem) {
  const DistributedSampler sampler(10, 4, 3, 2);
  EXPECT_EQ(sampler.steps_per_epoch(), 3);
  EXPECT_EQ(sampler.global_count(0), 4);
  EXPECT_EQ(sampler.global_count(2), 2);  // the short last batch normalises by 2, not by 4
  EXPECT_EQ(sampler.positions(0), (std::vector<std::int64_t>{2}));
  EXPECT_EQ(sampler.positions(1), (std::vector<std::int64_t>{5}));
  EXPECT_EQ(sampler.positions(2), (std::vector<std::int64_t>{8}));
  EXPECT_EQ(DistributedSampler(10, 4, 3, 0).positions(2), (std::vector<std::int64_t>{9}));
  // 2 rows for 3 ranks: rank 1 has nothing (it still all-reduces, zeros).
  EXPECT_TRUE(DistributedSampler(10, 4, 3, 1).positions(2).empty());
  EXPECT_THROW(sampler.positions(3), std::out_of_range);
  EXPECT_EQ(DistributedSampler(10, 4, 3, 0, /*drop_last=*/true).steps_per_epoch(), 2);
  EXPECT_THROW(DistributedSampler(10, 0, 1, 0), std::invalid_argument);
  EXPECT_THROW(DistributedSampler(10, 4, 2, 2), std::invalid_argument);
  EXPECT_THROW(DistributedSampler(-1, 4), std::invalid_argument);
}

// World size 1 visits the sentence pairs exactly as the seq2seq trainer does today:
// data::epoch_order, then batch_indices(order, first, min(batch, n - first)).
TEST(DistributedSampler, WorldOneIsTheSingleProcessPairOrder) {
  const std::int64_t n = 53, batch = 8;
  const DistributedSampler sampler(n, batch);
  for (const std::int64_t epoch : {1, 2, 7}) {
    const auto order = data::epoch_order(n, 42, epoch);
    std::int64_t step = 0;
    for (std::int64_t first = 0; first < n; first += batch, ++step) {
      const auto expected = data::batch_indices(order, first, std::min(batch, n - first));
      EXPECT_TRUE(torch::equal(torch::tensor(sampler.take(order, step), torch::kLong), expected)) << step;
    }
    EXPECT_EQ(step, sampler.steps_per_epoch());
    EXPECT_EQ(rank_epoch_indices(n, 42, epoch, 1, 0), order);
  }
}

// ... and the images exactly as ImageLoader does (with and without drop_last).
TEST(DistributedSampler, WorldOneIsTheImageLoaderOrder) {
  auto images = std::make_shared<data::ImageSet>();
  images->channels = 1;
  images->height = images->width = 2;
  images->labels.assign(23, 0);
  images->pixels.assign(23 * 4, 0);
  images->class_names = images->display_names = {"only"};
  for (const bool drop_last : {false, true}) {
    data::ImageLoaderOptions options;
    options.batch_size = 5;
    options.seed = 9;
    options.prefetch = 0;
    options.drop_last = drop_last;
    data::ImageLoader loader(images, options);
    const DistributedSampler sampler(23, 5, 1, 0, drop_last);
    loader.start_epoch(3);
    const auto order = data::image_epoch_order(23, 9, 3);
    std::int64_t step = 0;
    while (auto batch = loader.next()) EXPECT_EQ(batch->indices, sampler.take(order, step++)) << drop_last;
    EXPECT_EQ(step, sampler.steps_per_epoch());
  }
}

TEST(DistributedSampler, RankEpochIndicesPartitionTheEpochOrder) {
  for (int world = 1; world <= 5; ++world) {
    std::vector<std::vector<std::int64_t>> shares;
    for (int r = 0; r < world; ++r) shares.push_back(rank_epoch_indices(23, 5, 2, world, r));
    EXPECT_EQ(sampler_union(shares), sampler_iota(0, 23)) << world;
    EXPECT_EQ(shares[0].front(), data::epoch_order(23, 5, 2).front());
  }
  EXPECT_TRUE(rank_epoch_indices(0, 5, 2, 3, 1).empty());
}

// A run stopped after k global steps and resumed at step k with another world size (3 -> 2
// -> 5 ranks) trains on every sample of the epoch exactly once.
TEST(DistributedSampler, ResumingWithAnotherWorldSizeNeitherRepeatsNorSkips) {
  const std::int64_t n = 103, batch = 8;
  const auto order = data::epoch_order(n, 11, 4);
  std::vector<std::vector<std::int64_t>> seen;
  const std::vector<std::pair<int, std::int64_t>> legs = {{3, 0}, {2, 5}, {5, 9}};  // (world, first step)
  const std::int64_t steps = DistributedSampler(n, batch).steps_per_epoch();
  for (std::size_t leg = 0; leg < legs.size(); ++leg) {
    const auto [world, first] = legs[leg];
    const auto end = leg + 1 < legs.size() ? legs[leg + 1].second : steps;
    for (int r = 0; r < world; ++r) {
      const DistributedSampler sampler(n, batch, world, r);
      for (auto s = first; s < end; ++s) seen.push_back(sampler.take(order, s));
    }
  }
  EXPECT_EQ(sampler_union(seen), sampler_iota(0, n));
}

}  // namespace
}  // namespace dls::train

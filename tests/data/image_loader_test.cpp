#include "dls/data/image_loader.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <vector>

#include "dls/util/random.h"

namespace dls::data {
namespace {

// n random 3×8×8 images, label i mod 10.
std::shared_ptr<const ImageSet> random_set(std::size_t n) {
  auto set = std::make_shared<ImageSet>();
  set->channels = 3;
  set->height = 8;
  set->width = 8;
  set->class_names = cifar10_class_names();
  util::Rng rng(99);
  set->pixels.resize(n * set->image_bytes());
  for (auto& p : set->pixels) p = static_cast<std::uint8_t>(rng.below(256));
  for (std::size_t i = 0; i < n; ++i) set->labels.push_back(static_cast<std::uint8_t>(i % 10));
  return set;
}

ImageLoaderOptions augmenting(std::size_t batch_size, std::size_t prefetch) {
  ImageLoaderOptions options;
  options.batch_size = batch_size;
  options.prefetch = prefetch;
  options.seed = 5;
  options.augment = AugmentOptions{2, true};
  return options;
}

std::vector<ImageBatch> epoch_batches(ImageLoader& loader, std::int64_t epoch) {
  std::vector<ImageBatch> batches;
  loader.start_epoch(epoch);
  while (auto batch = loader.next()) batches.push_back(std::move(*batch));
  return batches;
}

void expect_same(const std::vector<ImageBatch>& a, const std::vector<ImageBatch>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t k = 0; k < a.size(); ++k) {
    EXPECT_EQ(a[k].indices, b[k].indices) << "batch " << k;
    EXPECT_TRUE(torch::equal(a[k].images, b[k].images)) << "batch " << k;
    EXPECT_TRUE(torch::equal(a[k].labels, b[k].labels)) << "batch " << k;
  }
}

TEST(ImageLoader, BatchesAreTheSameWithAndWithoutPrefetching) {
  const auto set = random_set(103);
  ImageLoader sync(set, augmenting(16, 0));
  ImageLoader ahead(set, augmenting(16, 3));
  for (const std::int64_t epoch : {0, 1, 7}) {
    expect_same(epoch_batches(sync, epoch), epoch_batches(ahead, epoch));
  }
  // Another epoch or another seed gives another order.
  EXPECT_NE(epoch_batches(sync, 0)[0].indices, epoch_batches(sync, 1)[0].indices);
  ImageLoaderOptions other = augmenting(16, 0);
  other.seed = 6;
  ImageLoader reseeded(set, other);
  EXPECT_NE(epoch_batches(sync, 0)[0].indices, epoch_batches(reseeded, 0)[0].indices);
}

TEST(ImageLoader, EveryImageOnceAndPartialLastBatch) {
  const auto set = random_set(103);
  ImageLoader loader(set, augmenting(16, 2));
  EXPECT_EQ(loader.num_batches(), 7U);
  const std::vector<ImageBatch> batches = epoch_batches(loader, 3);
  ASSERT_EQ(batches.size(), 7U);
  std::vector<std::size_t> seen;
  for (const ImageBatch& batch : batches) {
    EXPECT_EQ(batch.images.scalar_type(), torch::kFloat32);
    EXPECT_EQ(batch.labels.scalar_type(), torch::kInt64);
    EXPECT_EQ(batch.images.size(0), batch.labels.size(0));
    EXPECT_EQ(batch.images.sizes().slice(1), (std::vector<std::int64_t>{3, 8, 8}));
    for (std::size_t k = 0; k < batch.indices.size(); ++k) {
      EXPECT_EQ(batch.labels[static_cast<std::int64_t>(k)].item<std::int64_t>(), set->labels[batch.indices[k]]);
    }
    seen.insert(seen.end(), batch.indices.begin(), batch.indices.end());
  }
  EXPECT_EQ(batches.back().images.size(0), 103 - 6 * 16);
  std::sort(seen.begin(), seen.end());
  for (std::size_t i = 0; i < seen.size(); ++i) ASSERT_EQ(seen[i], i);
  ASSERT_EQ(seen.size(), 103U);

  ImageLoaderOptions dropping = augmenting(16, 2);
  dropping.drop_last = true;
  ImageLoader dropper(set, dropping);
  EXPECT_EQ(dropper.num_batches(), 6U);
  const std::vector<ImageBatch> full = epoch_batches(dropper, 3);
  ASSERT_EQ(full.size(), 6U);
  for (const ImageBatch& batch : full) EXPECT_EQ(batch.images.size(0), 16);
}

TEST(ImageLoader, UnshuffledPlainBatchesHoldTheNormalisedBytes) {
  const auto set = random_set(10);
  ImageLoaderOptions options;
  options.batch_size = 4;
  options.shuffle = false;
  ImageLoader loader(set, options);
  const std::vector<ImageBatch> batches = epoch_batches(loader, 0);
  ASSERT_EQ(batches.size(), 3U);
  EXPECT_EQ(batches[1].indices, (std::vector<std::size_t>{4, 5, 6, 7}));
  // DLStudio's (x/255 − 0.5)/0.5 of every byte of images 4 … 7.
  const torch::Tensor bytes =
      torch::tensor(std::vector<float>(set->pixels.begin() + 4 * 192, set->pixels.begin() + 8 * 192))
          .view({4, 3, 8, 8});
  EXPECT_TRUE(torch::allclose(batches[1].images, (bytes / 255.0 - 0.5) / 0.5, 1e-6, 1e-6));
}

TEST(ImageLoader, AugmentationDependsOnImageAndEpochNotOnBatching) {
  const auto set = random_set(40);
  ImageLoader small(set, augmenting(3, 2));
  ImageLoader large(set, augmenting(16, 0));
  const std::vector<ImageBatch> a = epoch_batches(small, 2);
  for (const ImageBatch& batch : epoch_batches(large, 2)) {
    for (std::size_t k = 0; k < batch.indices.size(); ++k) {
      const ImageBatch one = small.make_batch({batch.indices[k]}, 2);
      EXPECT_TRUE(torch::equal(one.images[0], batch.images[static_cast<std::int64_t>(k)]));
    }
  }
  // Augmentation is really on: some image differs from its plain normalised version, and
  // the same image is augmented differently in another epoch.
  ImageLoaderOptions plain = augmenting(40, 0);
  plain.augment = AugmentOptions{};
  ImageLoader unaugmented(set, plain);
  const std::vector<std::size_t> all = a[0].indices;
  EXPECT_FALSE(torch::equal(small.make_batch(all, 2).images, unaugmented.make_batch(all, 2).images));
  EXPECT_FALSE(torch::equal(small.make_batch(all, 2).images, small.make_batch(all, 3).images));
}

TEST(ImageLoader, StoppingEarlyAndRestartingDoesNotHang) {
  const auto set = random_set(500);
  ImageLoader loader(set, augmenting(4, 2));
  loader.start_epoch(0);
  ASSERT_TRUE(loader.next().has_value());
  // A new epoch abandons the old one; the results equal a fresh loader's.
  const std::vector<ImageBatch> restarted = epoch_batches(loader, 1);
  ImageLoader fresh(set, augmenting(4, 0));
  expect_same(restarted, epoch_batches(fresh, 1));
  loader.start_epoch(2);
  ASSERT_TRUE(loader.next().has_value());
}  // destroyed mid-epoch

TEST(ImageLoader, RejectsMisuse) {
  const auto set = random_set(5);
  ImageLoader loader(set);
  EXPECT_THROW(loader.next(), std::logic_error);
  ImageLoaderOptions zero;
  zero.batch_size = 0;
  EXPECT_THROW(ImageLoader(set, zero), std::invalid_argument);
  ImageLoaderOptions wrong;
  wrong.normalization = Normalization::dlstudio(1);
  EXPECT_THROW(ImageLoader(set, wrong), std::invalid_argument);
  auto broken = std::make_shared<ImageSet>(*set);
  broken->pixels.pop_back();
  EXPECT_THROW(ImageLoader(broken, ImageLoaderOptions{}), std::invalid_argument);
  EXPECT_THROW(ImageLoader(nullptr, ImageLoaderOptions{}), std::invalid_argument);
}

}  // namespace
}  // namespace dls::data

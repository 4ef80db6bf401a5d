// Batches of an ImageSet as LibTorch tensors for training and evaluation: a seeded
// shuffle per epoch, optional crop/flip augmentation, normalisation, and a background
// thread that prepares the next batches while the caller trains on the current one.
//
//   ImageLoader loader(train_set, options);
//   loader.start_epoch(epoch);
//   while (auto batch = loader.next()) { … batch->images [B, C, H, W], batch->labels [B] … }
//
// Batches depend only on (seed, epoch, options), never on prefetching or thread timing:
// the order is a Fisher–Yates permutation drawn from derive_seed(seed, epoch), and each
// image's crop/flip from derive_seed(seed, epoch, image index).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include <torch/types.h>

#include "dls/data/image_dataset.h"
#include "dls/data/image_transform.h"
#include "dls/data/prefetcher.h"

namespace dls::data {

struct ImageLoaderOptions {
  std::size_t batch_size = 48;  // DLStudio's ViT example
  bool shuffle = true;          // a new order every epoch; false = the set's own order
  bool drop_last = false;       // drop a final batch smaller than batch_size
  std::size_t prefetch = 2;     // batches prepared ahead on a background thread; 0 = none
  std::uint64_t seed = 0;       // order and augmentation follow from (seed, epoch)
  AugmentOptions augment;       // off by default (evaluation); see default_augmentation()
  Normalization normalization;  // empty = DLStudio's (x/255 − 0.5)/0.5 in every channel
};

struct ImageBatch {
  torch::Tensor images;              // float32 [B, C, H, W], normalised
  torch::Tensor labels;              // int64 [B]
  std::vector<std::size_t> indices;  // the images' positions in the ImageSet
};

// The order in which a shuffling ImageLoader with `seed` visits n images in epoch `epoch`:
// a permutation drawn from (seed, epoch) alone, which data-parallel ranks draw as well
// (train/parallel/distributed_sampler.h).
std::vector<std::size_t> image_epoch_order(std::size_t n, std::uint64_t seed, std::int64_t epoch);

class ImageLoader {
 public:
  // Throws std::invalid_argument for batch_size 0, a normalisation of the wrong size, or
  // a set whose pixel count does not match size() × C × H × W.
  ImageLoader(std::shared_ptr<const ImageSet> images, ImageLoaderOptions options = {});
  ~ImageLoader();  // stops the worker thread without waiting for the rest of the epoch

  // The worker thread refers to this object.
  ImageLoader(const ImageLoader&) = delete;
  ImageLoader& operator=(const ImageLoader&) = delete;

  // Abandons the current epoch, if any, and begins `epoch` (any number: resuming at epoch
  // 7 gives the batches a run that never stopped would have had).
  void start_epoch(std::int64_t epoch);

  // The epoch's next batch, or nullopt after its last. Rethrows an exception raised while
  // preparing a batch. Throws std::logic_error before the first start_epoch().
  std::optional<ImageBatch> next();

  std::size_t num_batches() const;
  const ImageSet& images() const { return *images_; }
  const ImageLoaderOptions& options() const { return options_; }

  // The batch of images `indices`, augmented as in `epoch`: what next() returns for them.
  ImageBatch make_batch(const std::vector<std::size_t>& indices, std::int64_t epoch) const;

 private:
  std::shared_ptr<const ImageSet> images_;
  ImageLoaderOptions options_;
  ImageTransform transform_;
  std::int64_t epoch_ = 0;
  std::vector<std::size_t> order_;  // this epoch's image order
  std::unique_ptr<Prefetcher<ImageBatch>> batches_;
};

}  // namespace dls::data

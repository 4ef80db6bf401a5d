#include "dls/data/image_loader.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <string>

#include <torch/torch.h>

#include "dls/util/random.h"

namespace dls::data {

namespace {

// Stream of derive_seed(seed, epoch, ·) that draws the epoch's order; streams 0 … N − 1
// are the images' augmentation draws.
constexpr std::uint64_t kOrderStream = ~std::uint64_t{0};

Normalization resolve_normalization(const ImageLoaderOptions& options, int channels) {
  const Normalization& given = options.normalization;
  return given.mean.empty() && given.std.empty() ? Normalization::dlstudio(channels) : given;
}

std::shared_ptr<const ImageSet> checked(std::shared_ptr<const ImageSet> images) {
  if (!images) throw std::invalid_argument("ImageLoader: no image set");
  if (images->pixels.size() != images->size() * images->image_bytes()) {
    throw std::invalid_argument("ImageLoader: " + std::to_string(images->pixels.size()) + " pixel bytes for " +
                                std::to_string(images->size()) + " images of " + std::to_string(images->image_bytes()) +
                                " bytes");
  }
  return images;
}

}  // namespace

std::vector<std::size_t> image_epoch_order(std::size_t n, std::uint64_t seed, std::int64_t epoch) {
  util::Rng rng(util::derive_seed(seed, static_cast<std::uint64_t>(epoch), kOrderStream));
  return util::random_permutation(n, rng);
}

ImageLoader::ImageLoader(std::shared_ptr<const ImageSet> images, ImageLoaderOptions options)
    : images_(checked(std::move(images))),
      options_(std::move(options)),
      transform_(images_->channels, images_->height, images_->width,
                 resolve_normalization(options_, images_->channels)) {
  if (options_.batch_size == 0) throw std::invalid_argument("ImageLoader: batch_size is 0");
  options_.normalization = resolve_normalization(options_, images_->channels);
}

ImageLoader::~ImageLoader() = default;  // batches_ (declared last) joins its thread first

std::size_t ImageLoader::num_batches() const {
  const std::size_t n = images_->size();
  const std::size_t b = options_.batch_size;
  return options_.drop_last ? n / b : (n + b - 1) / b;
}

void ImageLoader::start_epoch(std::int64_t epoch) {
  batches_.reset();  // the old worker reads order_: stop it before changing it
  epoch_ = epoch;
  if (options_.shuffle) {
    order_ = image_epoch_order(images_->size(), options_.seed, epoch);
  } else {
    order_.resize(images_->size());
    std::iota(order_.begin(), order_.end(), std::size_t{0});
  }
  const auto produce = [this](std::size_t b) {
    const std::size_t begin = b * options_.batch_size;
    const std::size_t end = std::min(begin + options_.batch_size, order_.size());
    const std::vector<std::size_t> indices(order_.begin() + static_cast<std::ptrdiff_t>(begin),
                                           order_.begin() + static_cast<std::ptrdiff_t>(end));
    return make_batch(indices, epoch_);
  };
  batches_ = std::make_unique<Prefetcher<ImageBatch>>(num_batches(), produce, options_.prefetch);
}

std::optional<ImageBatch> ImageLoader::next() {
  if (!batches_) throw std::logic_error("ImageLoader::next() called before start_epoch()");
  return batches_->next();
}

ImageBatch ImageLoader::make_batch(const std::vector<std::size_t>& indices, std::int64_t epoch) const {
  const ImageSet& set = *images_;
  const auto count = static_cast<std::int64_t>(indices.size());
  ImageBatch batch;
  batch.indices = indices;
  batch.images = torch::empty({count, set.channels, set.height, set.width}, torch::kFloat32);
  batch.labels = torch::empty({count}, torch::kInt64);
  float* images = batch.images.data_ptr<float>();
  std::int64_t* labels = batch.labels.data_ptr<std::int64_t>();
  const std::size_t image_floats = set.image_bytes();
  // One thread on purpose: this usually runs beside the training step, whose matrix
  // products already use every core; a batch takes well under a millisecond.
  for (std::size_t k = 0; k < indices.size(); ++k) {
    const std::size_t i = indices[k];
    if (i >= set.size()) {
      throw std::out_of_range("ImageLoader: image index " + std::to_string(i) + " beyond the " +
                              std::to_string(set.size()) + " images");
    }
    AugmentDraw draw;
    if (options_.augment.enabled()) {
      util::Rng rng(util::derive_seed(options_.seed, static_cast<std::uint64_t>(epoch), i));
      draw = draw_augmentation(options_.augment, set.height, set.width, rng);
    }
    transform_.apply(set.image(i), images + k * image_floats, draw);
    labels[k] = set.labels[i];
  }
  return batch;
}

}  // namespace dls::data

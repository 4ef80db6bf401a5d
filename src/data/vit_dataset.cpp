#include "dls/data/vit_dataset.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <stdexcept>
#include <string>

#include <spdlog/spdlog.h>

#include "dls/util/digest.h"
#include "dls/util/random.h"

namespace dls::data {

namespace {

// An image folder lists its classes one after another, so its first N images would be of the
// first class alone: N files drawn at random instead (by the split seed, so that a resume and a
// report draw the same ones), kept in the listing's order.
std::vector<ImageFolderFile> drawn_across_classes(const std::vector<ImageFolderFile>& files, std::size_t n,
                                                  std::uint64_t seed) {
  if (n >= files.size()) return files;
  util::Rng rng(seed);
  auto order = util::random_permutation(files.size(), rng);
  order.resize(n);
  std::sort(order.begin(), order.end());
  std::vector<ImageFolderFile> drawn;
  for (const auto i : order) drawn.push_back(files[i]);
  return drawn;
}

}  // namespace

ImageSet load_vit_images(const ViTDataSettings& settings, Split split, const ImageFolderListing* listing) {
  const std::size_t subset = split == Split::kTrain ? settings.train_subset : settings.test_subset;
  ImageSet images;
  if (settings.dataset == "image-folder") {
    auto folder = listing != nullptr ? *listing : list_image_folder(settings.data_dir);
    auto& files = split == Split::kTrain ? folder.train : folder.test;
    if (subset > 0) files = drawn_across_classes(files, subset, settings.split_seed);  // before decoding
    return read_image_folder(folder, split, settings.channels, settings.image_size);
  } else if (settings.dataset == "fashion-mnist") {
    images = read_fashion_mnist(settings.data_dir.empty() ? kFashionMnistDir : settings.data_dir, split);
  } else if (settings.dataset == "cifar10") {
    if (settings.data_dir.empty())
      throw std::invalid_argument(
          "CIFAR-10 needs --data-dir (the folder of data_batch_1.bin ... test_batch.bin), or `make data` to fetch it "
          "into $DLS_DATA_DIR/cifar10");
    images = read_cifar10(settings.data_dir, split);
  } else {
    throw std::invalid_argument("unknown dataset '" + settings.dataset +
                                "' (expected cifar10, fashion-mnist or image-folder)");
  }
  return subset > 0 ? take_first(images, subset) : images;  // DLStudio's datasets come shuffled
}

Normalization resolve_vit_normalization(const ViTDataSettings& settings, const ImageSet& train) {
  if (settings.normalization == "dlstudio") return Normalization::dlstudio(train.channels);
  if (settings.normalization == "dataset") {
    const auto stats = compute_channel_stats(train);
    for (std::size_t c = 0; c < stats.std.size(); ++c) {
      if (!(stats.std[c] > 0.0F))  // a standardisation would divide by zero
        throw std::invalid_argument("--normalization dataset: channel " + std::to_string(c) +
                                    " has the same value in every training image's every pixel; "
                                    "give --normalization dlstudio");
    }
    return stats;
  }
  throw std::invalid_argument("unknown normalisation '" + settings.normalization + "' (expected dlstudio or dataset)");
}

ImageSplit split_training_images(std::size_t images, double fraction, std::uint64_t seed) {
  std::size_t held_out = 0;
  if (fraction > 0 && images > 1) {
    const auto share = static_cast<std::size_t>(std::llround(fraction * static_cast<double>(images)));
    held_out = std::clamp<std::size_t>(share, 1, images - 1);
  }
  util::Rng rng(seed);
  auto order = util::random_permutation(images, rng);
  ImageSplit split;
  split.validation.assign(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(held_out));
  split.training.assign(order.begin() + static_cast<std::ptrdiff_t>(held_out), order.end());
  std::sort(split.validation.begin(), split.validation.end());
  std::sort(split.training.begin(), split.training.end());
  return split;
}

ViTDataset load_vit_training_dataset(const ViTDataSettings& settings, const Normalization* stored) {
  ViTDataset dataset;
  std::optional<ImageFolderListing> listing;
  if (settings.dataset == "image-folder") {
    listing = list_image_folder(settings.data_dir);
    dataset.image_files = listing->manifest();
    if (listing->skipped > 0)  // a folder of WebP or GIF files would otherwise train on what is left, silently
      spdlog::warn("{}: left out {} file{} that {} not .png, .jpg or .jpeg images (the first: {})", settings.data_dir,
                   listing->skipped, listing->skipped == 1 ? "" : "s", listing->skipped == 1 ? "is" : "are",
                   listing->first_skipped);
  }
  const auto* folder = listing ? &*listing : nullptr;
  const auto all = load_vit_images(settings, Split::kTrain, folder);
  const auto split = split_training_images(all.size(), settings.validation_fraction, settings.split_seed);
  dataset.train = std::make_shared<const ImageSet>(select_images(all, split.training));
  dataset.validation = std::make_shared<const ImageSet>(select_images(all, split.validation));
  dataset.test = std::make_shared<const ImageSet>(load_vit_images(settings, Split::kTest, folder));
  if (folder != nullptr) {
    dataset.pixel_digest = util::digest(util::kDigestStart, all.pixels.data(), all.pixels.size());
    dataset.pixel_digest = util::digest(dataset.pixel_digest, dataset.test->pixels.data(), dataset.test->pixels.size());
  }
  dataset.normalization = stored != nullptr ? *stored : resolve_vit_normalization(settings, *dataset.train);
  return dataset;
}

}  // namespace dls::data

// The images of a visTransformer run, read by training and checkpoint evaluation alike (so
// that both see the same test images): the dataset a run names, its subsets, and the
// normalisation its images go through.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "dls/data/image_dataset.h"
#include "dls/data/image_folder.h"
#include "dls/data/image_transform.h"

namespace dls::data {

// Which images and how they are prepared (checkpoint keys "data.*", settings/vit_settings.h).
struct ViTDataSettings {
  std::string dataset = "fashion-mnist";  // "fashion-mnist", "cifar10" or "image-folder" (image_folder.h)
  std::string data_dir;                   // empty: Fashion-MNIST's Debian folder (CIFAR-10, image folder: required)
  // An image folder's images are resized to image_size x image_size with `channels` (1 or 3);
  // the other datasets have their own.
  int image_size = 32;
  int channels = 3;
  // > 0: only N training / test images, the first N (an image folder's: N drawn across its
  // classes by split_seed, as its listing runs class by class).
  std::size_t train_subset = 0;
  std::size_t test_subset = 0;
  // The share of the training images held out for validation: the score best.pt and
  // --patience judge, so that the test images never choose a model. 0: none (checkpoints
  // written before the split read back so: those runs trained on every image).
  double validation_fraction = 0.1;
  std::uint64_t split_seed = 1234;  // which images are held out
  // "dlstudio": (x - 0.5) / 0.5 per channel; "dataset": the training images' own mean/std.
  std::string normalization = "dlstudio";
  AugmentOptions augment;  // random crop (pad) and horizontal flip
};

// The run's training or test images (train_subset / test_subset of them). Throws
// std::runtime_error (one line naming the file) for unreadable data, std::invalid_argument
// for an unknown dataset or CIFAR-10 without a data_dir. An image folder without a test/
// folder has no test images. `listing`: an image folder's, when the caller has it.
ImageSet load_vit_images(const ViTDataSettings& settings, Split split, const ImageFolderListing* listing = nullptr);

// "dlstudio": (x - 0.5) / 0.5; "dataset": mean and std of `train` (per channel).
Normalization resolve_vit_normalization(const ViTDataSettings& settings, const ImageSet& train);

// The training images split into those trained on and those held out for validation.
struct ImageSplit {
  std::vector<std::size_t> training;    // indices, ascending
  std::vector<std::size_t> validation;  // indices, ascending
};

// Holds out round(fraction x images) of `images` (at least one of two or more when
// fraction > 0, never all), drawn by util::random_permutation from `seed`: the same split for
// the same count, fraction and seed on any machine, so that a resumed run trains on the
// same images.
ImageSplit split_training_images(std::size_t images, double fraction, std::uint64_t seed);

// A training run's images. An evaluation reads the test set alone, through load_vit_images
// with the checkpoint's settings (eval/vit_evaluation.h), and normalises it as the
// checkpoint's run did.
struct ViTDataset {
  std::shared_ptr<const ImageSet> train;       // the images trained on
  std::shared_ptr<const ImageSet> validation;  // held out of the training images (may be empty)
  std::shared_ptr<const ImageSet> test;
  Normalization normalization;  // of every set
  std::string image_files;      // an image folder's listing (ImageFolderListing::manifest), else ""
  // An image folder's decoded pixels (the whole folder, training then test images:
  // util/digest.h), which tell an image replaced under its name; 0 for the datasets.
  std::uint64_t pixel_digest = 0;
};

// A training run's images: the training images split by settings.validation_fraction and
// split_seed, and the test images, normalised as `stored` (a resumed run: its checkpoint's)
// or as settings.normalization resolves on the images trained on (a new run).
ViTDataset load_vit_training_dataset(const ViTDataSettings& settings, const Normalization* stored);

}  // namespace dls::data

// The images of a visTransformer run, read by training and checkpoint evaluation alike (so
// that both see the same test images): the dataset a run names, its subsets, and the
// normalisation its images go through.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "dls/data/image_dataset.h"
#include "dls/data/image_transform.h"

namespace dls::data {

// Which images and how they are prepared (checkpoint keys "data.*", settings/vit_settings.h).
struct ViTDataSettings {
  std::string dataset = "fashion-mnist";  // "fashion-mnist" or "cifar10"
  std::string data_dir;                   // empty: Fashion-MNIST's Debian folder (CIFAR-10: required)
  std::size_t train_subset = 0;           // > 0: only the first N training images
  std::size_t test_subset = 0;            // > 0: only the first N test images
  // "dlstudio": (x - 0.5) / 0.5 per channel; "dataset": the training images' own mean/std.
  std::string normalization = "dlstudio";
  AugmentOptions augment;  // random crop (pad) and horizontal flip
};

// The run's training or test images (first train_subset / test_subset of them). Throws
// std::runtime_error (one line naming the file) for unreadable data, std::invalid_argument
// for an unknown dataset or CIFAR-10 without a data_dir.
ImageSet load_vit_images(const ViTDataSettings& settings, Split split);

// "dlstudio": (x - 0.5) / 0.5; "dataset": mean and std of `train` (per channel).
Normalization resolve_vit_normalization(const ViTDataSettings& settings, const ImageSet& train);

// A training run's images. An evaluation reads the test set alone, through load_vit_images
// with the checkpoint's settings (eval/vit_evaluation.h), and normalises it as the
// checkpoint's run did.
struct ViTDataset {
  std::shared_ptr<const ImageSet> train;
  std::shared_ptr<const ImageSet> test;
  Normalization normalization;  // of both sets
};

// A training run's images: both sets, normalised as `stored` (a resumed run: its
// checkpoint's) or as settings.normalization resolves on the training images (a new run).
ViTDataset load_vit_training_dataset(const ViTDataSettings& settings, const Normalization* stored);

}  // namespace dls::data

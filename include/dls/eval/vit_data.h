// The image data of a ViT run, shared by training and evaluation: reading the dataset a
// run names (with its subsets), the normalisation it uses, and one pass of a model over a
// loader that collects predictions.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <torch/types.h>

#include "dls/settings/vit_settings.h"
#include "dls/data/image_dataset.h"
#include "dls/data/image_loader.h"
#include "dls/data/image_transform.h"
#include "dls/models/vit.h"

namespace dls::eval {

// The run's training or test images (first train_subset / test_subset of them). Throws
// std::runtime_error (one line naming the file) for unreadable data, std::invalid_argument
// for an unknown dataset or CIFAR-10 without a data_dir.
data::ImageSet load_vit_images(const settings::ViTDataSettings& data, data::Split split);

// Throws std::runtime_error unless `images` have the size, channels and classes `model` was
// built for: "<what> are HxWxC images in N classes; the model expects ...". Test images of
// another size than the training images are refused, never evaluated.
void check_images_fit(const data::ImageSet& images, const ViTConfig& model, const std::string& what);

// "dlstudio": (x - 0.5) / 0.5; "dataset": mean and std of `train` (per channel).
data::Normalization resolve_vit_normalization(const settings::ViTDataSettings& data, const data::ImageSet& train);

// Predicted and true labels of one pass over a loader, in the loader's order.
struct Predictions {
  std::vector<std::int64_t> predicted;
  std::vector<std::int64_t> labels;
  double mean_loss = 0;  // cross-entropy, no label smoothing
  double seconds = 0;    // wall time of the pass

  std::size_t size() const { return labels.size(); }
  double accuracy() const;  // fraction correct (NaN when empty)
};

// Runs the model in evaluation mode (dropout off, no gradients) over every batch of one
// epoch of `loader`, then restores the model's previous mode.
Predictions predict(visTransformer& model, data::ImageLoader& loader, const torch::Device& device);

}  // namespace dls::eval

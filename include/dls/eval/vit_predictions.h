// A visTransformer over images, shared by training and evaluation: the check that a run's
// images fit the model, and one pass of the model over a loader that collects predictions.
// The images themselves: data/vit_dataset.h.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <torch/types.h>

#include "dls/data/image_dataset.h"
#include "dls/data/image_loader.h"
#include "dls/models/vit.h"

namespace dls::eval {

// Throws std::runtime_error unless `images` have the size, channels and classes `model` was
// built for: "<what> are HxWxC images in N classes; the model expects ...". Test images of
// another size than the training images are refused, never evaluated.
void check_images_fit(const data::ImageSet& images, const ViTConfig& model, const std::string& what);

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

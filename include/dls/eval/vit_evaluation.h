// Evaluation of visTransformer checkpoints: the model is rebuilt from the checkpoint alone,
// run over the test images of the dataset the checkpoint names, and summarised as a
// confusion matrix; plus the class token's attention over the patches for a few images.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <torch/types.h>

#include "dls/checkpoint/checkpoint.h"
#include "dls/checkpoint/vit_checkpoint.h"
#include "dls/data/image_dataset.h"
#include "dls/eval/confusion_matrix.h"
#include "dls/data/vit_dataset.h"
#include "dls/eval/vit_predictions.h"
#include "dls/models/vit.h"

namespace dls::eval {

struct ViTEvalOptions {
  std::string data_dir;         // non-empty: read the test images from here instead
  std::size_t test_subset = 0;  // > 0: first N test images (0: what the checkpoint used)
  torch::Device device = torch::kCPU;
  checkpoint::Weights weights = checkpoint::Weights::kEvaluation;  // the moving average when saved, or the trained
};

struct ViTCheckpointResult {
  std::string path;
  checkpoint::ViTCheckpointContents contents;
  ConfusionMatrix confusion{1};
  double test_loss = 0;
  double images_per_s = 0;  // evaluation throughput
};

// The checkpoint's test images (data_dir / test_subset overrides applied), read as its
// training run read them (data::load_vit_images); another image folder (data_dir) is read
// as an evaluation folder (data::list_evaluation_folder: DIR/test/CLASS or DIR/CLASS, labelled
// by the checkpoint's class names).
data::ImageSet load_test_images(const checkpoint::ViTCheckpointContents& contents, const ViTEvalOptions& options);

// Rebuilds and evaluates one checkpoint on `test` (CheckpointError for a bad file).
ViTCheckpointResult evaluate_vit_checkpoint(const std::string& path, const data::ImageSet& test,
                                            const ViTEvalOptions& options);

// Evaluates `model`, rebuilt from the checkpoint at `path` whose contents are `contents` and
// moved to options.device, on `test`: for a caller that read the file already.
ViTCheckpointResult evaluate_vit_model(visTransformer& model, std::string path,
                                       checkpoint::ViTCheckpointContents contents, const data::ImageSet& test,
                                       const ViTEvalOptions& options);

// Index of the result with the highest accuracy (the earliest among equals).
std::size_t best_result(const std::vector<ViTCheckpointResult>& results);

// One row per checkpoint: epoch, test accuracy, mean class accuracy, test loss, training
// loss and images/s at the checkpoint, evaluation images/s; then "best: <path> (...)".
std::string format_checkpoint_table(const std::vector<ViTCheckpointResult>& results);

// The class token's last-layer attention over the patches of one image.
struct AttentionMap {
  std::size_t image = 0;  // index in the image set
  std::int64_t label = 0, predicted = 0;
  std::vector<double> mean;                // [P], averaged over heads
  std::vector<std::vector<double>> heads;  // [H][P]
  // Models with a pixel attention block (empty otherwise), heads averaged, over the
  // side x side pixels of the block's map (row-major): the attention of the centre pixel
  // (query) over all pixels, and the attention each pixel receives (mean over queries).
  std::int64_t pixel_side = 0;
  std::vector<double> pixel_from_centre, pixel_received;
};

// Attention maps of the first `count` images of `images` (model in evaluation mode).
std::vector<AttentionMap> class_token_attention_maps(visTransformer& model, const data::ImageSet& images,
                                                     const data::Normalization& normalization, std::size_t count,
                                                     const torch::Device& device);

// Writes <dir>/attention_mean.png (one overlay per image, heads averaged) and
// <dir>/attention_heads.png (one row per image: the image, then one overlay per head);
// for a model with pixel attention also <dir>/pixel_attention.png (one row per image: the
// image, the centre pixel's attention, the attention received). Returns the paths written.
std::vector<std::string> save_attention_maps(const std::vector<AttentionMap>& maps, const data::ImageSet& images,
                                             std::int64_t grid_size, const std::string& dir);

}  // namespace dls::eval

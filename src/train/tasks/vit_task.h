// Image classification with the visTransformer as a task of the shared training loop
// (private to src/train): the image sets and loaders, the model, cross-entropy with label
// smoothing, the training accuracy, and after every epoch the validation accuracy (the
// held-out training images, which best.pt and --patience judge) and the test accuracy
// (reported, never used to choose).
#pragma once

#include <cmath>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "dls/checkpoint/vit_checkpoint.h"
#include "dls/data/image_loader.h"
#include "dls/train/parallel/distributed_sampler.h"
#include "dls/train/loop_state.h"
#include "dls/train/training_task.h"
#include "dls/train/tasks/vit_trainer.h"

namespace dls::train {

using settings::ViTTrainSettings;

class ViTTask : public TrainingTask {
 public:
  // Reads the images, builds the model and logs the start-up report. `resumed`: the
  // checkpoint's contents (its normalisation is reused and its epoch length checked). The
  // --init-from checkpoint gives the data nothing (its classes are matched by name when its
  // weights are read, init_plans.h).
  ViTTask(const settings::ViTTrainSettings& settings, const checkpoint::ViTCheckpointContents* resumed,
          const std::string& resumed_path, const checkpoint::CheckpointReader* /*parent*/, const torch::Device& device,
          int workers);

  // The loop's state at the checkpoint's state.
  double test_accuracy() const { return test_accuracy_; }
  double test_loss() const { return test_loss_; }  // of the latest test in this process (NaN before one)
  double val_accuracy() const { return val_accuracy_; }
  double val_loss() const { return val_loss_; }  // of the latest validation in this process (NaN before one)

  torch::nn::Module& model() override { return *model_; }
  settings::LrSchedule schedule() const override { return schedule_; }
  std::int64_t steps_per_epoch() const override { return steps_per_epoch_; }
  std::int64_t examples_per_epoch() const override;
  std::uint64_t training_data_digest() const override;
  // The training images' classes in output order (a built-in dataset's or the folder's).
  const std::vector<std::string>& class_names() const;
  std::string example_unit() const override { return "img"; }
  void start_epoch(std::int64_t epoch, std::int64_t steps_done, const BatchShare& share) override;
  std::optional<TrainingBatch> next_batch() override;
  ChunkLossFn loss_share(const TrainingBatch& batch) override;
  double loss_weight(const TrainingBatch& batch) const override;  // its images
  std::optional<std::int64_t> correct_predictions(const TrainingBatch& batch,
                                                  const torch::Tensor& outputs) const override;
  EpochEvaluation evaluate(int workers) override;
  const std::vector<std::string>& metrics_header() const override;
  std::string rate_column() const override { return "images_per_s"; }
  void write_plots(const std::string& metrics_path, const std::string& run_dir) const override;
  std::string checkpoint_kind() const override;
  void describe_checkpoint(checkpoint::CheckpointWriter& writer) const override;

 private:
  settings::ViTTrainSettings settings_;
  torch::Device device_;
  data::Normalization normalization_;
  std::vector<std::string> class_names_;  // an image folder's, for the checkpoint (else empty)
  std::string image_files_;               // an image folder's listing (data::ViTDataset::image_files)
  std::uint64_t pixel_digest_ = 0;        // and its images' digest (data::ViTDataset::pixel_digest)
  std::unique_ptr<data::ImageLoader> train_loader_, test_loader_;
  std::unique_ptr<data::ImageLoader> validation_loader_;  // null without validation images
  visTransformer model_{nullptr};
  settings::LrSchedule schedule_;
  std::int64_t steps_per_epoch_ = 0;
  // In a process group: this process's images of each batch, built without prefetching (one
  // process reads the loader's prefetched whole batches).
  std::optional<DistributedSampler> sampler_;
  std::vector<std::size_t> order_;  // the epoch's image order (process group only)
  std::int64_t epoch_ = 0, next_step_ = 0;
  double test_accuracy_ = NAN;  // of the latest test (or the checkpoint's)
  double test_loss_ = NAN;
  double val_accuracy_ = NAN;  // of the latest validation (or the checkpoint's)
  double val_loss_ = NAN;
};

}  // namespace dls::train

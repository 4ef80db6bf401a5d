#include "train/tasks/vit_task.h"

#include <spdlog/spdlog.h>
#include <torch/torch.h>

#include "dls/checkpoint/checkpoint.h"
#include "dls/data/vit_dataset.h"
#include "dls/eval/vit_predictions.h"
#include "dls/models/seq2seq.h"  // count_parameters
#include "train/training_support.h"
#include "dls/train/run_plots.h"
#include "dls/util/digest.h"
#include "dls/util/parallel_chunks.h"
#include "train/tasks/vit_metrics.h"

namespace dls::train {

ViTTask::ViTTask(const settings::ViTTrainSettings& settings, const checkpoint::ViTCheckpointContents* resumed,
                 const std::string& resumed_path, const checkpoint::CheckpointReader* /*parent*/,
                 const torch::Device& device, int workers)
    : settings_(settings), device_(device) {
  auto images = data::load_vit_training_dataset(settings.data, resumed != nullptr ? &resumed->normalization : nullptr);
  const auto& train_set = images.train;
  const auto& test_set = images.test;
  normalization_ = images.normalization;
  if (!images.image_files.empty()) {
    class_names_ = train_set->class_names;
    image_files_ = images.image_files;
    pixel_digest_ = images.pixel_digest;
    // The split is redone from the listing: the same files, or other images than the run's.
    if (resumed != nullptr && resumed->image_files != image_files_) {
      throw std::runtime_error(settings.data.data_dir +
                               ": the image folder's files are not those the run began with (its checkpoint " +
                               resumed_path + " lists them); a resume needs the same images");
    }
    if (resumed != nullptr && resumed->pixel_digest != 0 && resumed->pixel_digest != pixel_digest_) {
      throw std::runtime_error(settings.data.data_dir +
                               ": the image folder's files have the run's names, but not all of their images are "
                               "the run's (an image replaced or edited since " +
                               resumed_path + "); a resume needs the same images");
    }
  }
  eval::check_images_fit(*train_set, settings.model, "the training images (" + settings.data.dataset + ")");
  if (test_set->size() > 0) {
    eval::check_images_fit(*test_set, settings.model, "the test images (" + settings.data.dataset + ")");
  }
  data::ImageLoaderOptions train_options;
  train_options.batch_size = settings.batch_size;
  train_options.seed = settings.seed;
  train_options.augment = settings.data.augment;
  train_options.normalization = normalization_;
  train_loader_ = std::make_unique<data::ImageLoader>(train_set, train_options);
  data::ImageLoaderOptions test_options;
  test_options.batch_size = 256;
  test_options.shuffle = false;
  test_options.normalization = normalization_;
  if (test_set->size() > 0) test_loader_ = std::make_unique<data::ImageLoader>(test_set, test_options);
  if (images.validation->size() > 0) {
    validation_loader_ = std::make_unique<data::ImageLoader>(images.validation, test_options);
  }
  if (!validation_loader_ && !test_loader_) {
    const auto training = train_set->size();
    throw std::runtime_error(settings.data.data_dir + ": " +
                             (settings.data.validation_fraction > 0
                                  ? std::to_string(training) + " training image" + (training == 1 ? "" : "s") +
                                        ", none to hold out for validation,"
                                  : std::string("no validation images (--validation-fraction 0)")) +
                             " and no test/ folder: nothing to evaluate the run on");
  }
  steps_per_epoch_ = static_cast<std::int64_t>(train_loader_->num_batches());
  if (resumed != nullptr) {
    check_resumed_steps_per_epoch(resumed_path, resumed->state.steps_per_epoch, resumed->settings.batch_size,
                                  settings.batch_size, steps_per_epoch_);
  }
  if (resumed != nullptr && resumed->test_accuracy >= 0) test_accuracy_ = resumed->test_accuracy;
  if (resumed != nullptr && resumed->val_accuracy >= 0) val_accuracy_ = resumed->val_accuracy;

  check_training_memory(vit_training_memory(settings.model, settings.batch_size), settings.batch_size, device,
                        "lower --embedding-size, --encoders, --batch-size or raise --patch-size");
  torch::manual_seed(settings.seed);
  model_ = visTransformer(settings.model);
  schedule_.kind = settings.schedule;
  schedule_.base_lr = settings.lr;
  schedule_.min_lr = settings.min_lr;
  schedule_.total_steps = settings.epochs * steps_per_epoch_;
  schedule_.warmup_steps = std::llround(settings.warmup_epochs * static_cast<double>(steps_per_epoch_));
  schedule_.embedding_size = settings.model.transformer().embedding_size();

  const auto count = count_parameters(*model_);
  const int chunks = util::effective_chunks(settings.batch_size, workers);  // a chunk holds one image at least
  spdlog::info("visTransformer: {} learnable parameters in {} tensors", count.parameters, count.tensors);
  spdlog::info("{}", settings.describe());
  spdlog::info(
      "{} training, {} validation (held out of the training images) and {} test images, {} steps per "
      "epoch, device {}{}",
      train_set->size(), images.validation->size(), test_set->size(), steps_per_epoch_, device.str(),
      device.is_cpu() && chunks > 1 ? ", each batch in " + std::to_string(chunks) + " concurrent chunks"
                                    : std::string());
  if (!validation_loader_) {
    spdlog::warn(
        "no validation images (validation fraction {}): best.pt and --patience judge nothing, and the test "
        "accuracy is only reported",
        settings.data.validation_fraction);
  }
}

std::int64_t ViTTask::examples_per_epoch() const { return static_cast<std::int64_t>(train_loader_->images().size()); }

const std::vector<std::string>& ViTTask::class_names() const { return train_loader_->images().class_names; }

std::uint64_t ViTTask::training_data_digest() const {
  const auto& images = train_loader_->images();
  const auto pixels = util::digest(util::kDigestStart, images.pixels.data(), images.pixels.size());
  return util::digest(pixels, images.labels.data(), images.labels.size());
}

void ViTTask::start_epoch(std::int64_t epoch, std::int64_t steps_done, const BatchShare& share) {
  epoch_ = epoch;
  next_step_ = steps_done;
  if (share.world_size == 1) {
    sampler_.reset();
    train_loader_->start_epoch(epoch);
    for (std::int64_t i = 0; i < steps_done; ++i) (void)train_loader_->next();  // a resumed epoch
    return;
  }
  const auto n = train_loader_->images().size();
  sampler_.emplace(static_cast<std::int64_t>(n), static_cast<std::int64_t>(settings_.batch_size), share.world_size,
                   share.rank);
  order_ = data::image_epoch_order(n, settings_.seed, epoch);
}

std::optional<TrainingBatch> ViTTask::next_batch() {
  if (!sampler_) {
    auto batch = train_loader_->next();
    if (!batch) return std::nullopt;
    const auto rows = batch->images.size(0);
    return TrainingBatch{batch->images, batch->labels, rows};
  }
  if (next_step_ >= steps_per_epoch_) return std::nullopt;
  const std::int64_t step = next_step_++;
  auto batch = train_loader_->make_batch(sampler_->take(order_, step), epoch_);  // augmented as in one process
  return TrainingBatch{batch.images, batch.labels, sampler_->global_count(step)};
}

ChunkLossFn ViTTask::loss_share(const TrainingBatch& batch) {
  const double batch_images = static_cast<double>(batch.global_rows);
  return [this, batch_images](const torch::Tensor& x, const torch::Tensor& y, torch::Tensor* logits) {
    *logits = model_(x).to(torch::kFloat);  // the loss in fp32 under autocast (--precision bf16) too
    const auto chunk_loss = torch::nn::functional::cross_entropy(
        *logits, y, torch::nn::functional::CrossEntropyFuncOptions().label_smoothing(settings_.label_smoothing));
    return chunk_loss * (static_cast<double>(x.size(0)) / batch_images);  // its share of the batch mean
  };
}

double ViTTask::loss_weight(const TrainingBatch& batch) const { return static_cast<double>(batch.global_rows); }

std::optional<std::int64_t> ViTTask::correct_predictions(const TrainingBatch& batch,
                                                         const torch::Tensor& outputs) const {
  return (outputs.argmax(1) == batch.targets).sum().item<std::int64_t>();
}

// The scores best.pt and --patience judge are the validation images' alone: the test images
// are scored for the report and never choose a model.
EpochEvaluation ViTTask::evaluate(int) {
  EpochEvaluation evaluation;
  if (validation_loader_) {
    const auto validated = eval::predict(model_, *validation_loader_, device_);
    val_accuracy_ = validated.accuracy();
    val_loss_ = validated.mean_loss;
    evaluation.metrics = {{"val_accuracy", number_text(val_accuracy_)}, {"val_loss", number_text(val_loss_)}};
    evaluation.summary =
        fmt::format("validation loss {:.4f}, validation accuracy {:.2f}%; ", val_loss_, 100 * val_accuracy_);
    evaluation.loss = val_loss_;
    evaluation.scores = {{"accuracy", val_accuracy_}, {"loss", val_loss_}};
  }
  if (!test_loader_) {  // an image folder without test/
    if (!evaluation.summary.empty()) evaluation.summary.resize(evaluation.summary.size() - 2);  // its "; "
    return evaluation;
  }
  const auto tested = eval::predict(model_, *test_loader_, device_);
  test_accuracy_ = tested.accuracy();
  evaluation.metrics.emplace_back("test_accuracy", number_text(test_accuracy_));
  evaluation.summary += fmt::format("test loss {:.4f}, test accuracy {:.2f}%", tested.mean_loss, 100 * test_accuracy_);
  if (tested.size() > 0) {
    test_loss_ = tested.mean_loss;
    evaluation.metrics.emplace_back("test_loss", number_text(test_loss_));
    if (!validation_loader_) evaluation.loss = test_loss_;  // divergence shows in it all the same
  }
  return evaluation;
}

const std::vector<std::string>& ViTTask::metrics_header() const { return vit_metrics_header(); }

void ViTTask::write_plots(const std::string& metrics_path, const std::string& run_dir) const {
  save_run_plots(vit_run_plots(metrics_path, settings_.label_smoothing), run_dir);
}

std::string ViTTask::checkpoint_kind() const { return checkpoint::kViTCheckpointKind; }

void ViTTask::describe_checkpoint(checkpoint::CheckpointWriter& writer) const {
  checkpoint::describe_vit_checkpoint(
      writer, {settings_, normalization_, class_names_, image_files_, pixel_digest_,
               std::isnan(test_accuracy_) ? -1 : test_accuracy_, std::isnan(val_accuracy_) ? -1 : val_accuracy_,
               checkpoint::RunState{}});  // the state: the loop's to save
}

}  // namespace dls::train

// ViT training: the ViTTask on the shared training loop.
#include "dls/train/tasks/vit_trainer.h"

#include "dls/checkpoint/vit_checkpoint.h"
#include "dls/data/image_folder.h"
#include "dls/models/seq2seq.h"  // count_parameters
#include "train/tasks/epoch_task_run.h"
#include "train/tasks/init_plans.h"
#include "train/tasks/vit_task.h"

namespace dls::train {

namespace {
const std::string kDefaultRunDir = "runs/vit";
}  // namespace

ViTTrainResult train_vit(const settings::ViTTrainSettings& settings, checkpoint::OpenedCheckpoints opened) {
  // Before the directory is made; a resume without --run-dir continues where its run is.
  if (settings.data.dataset == "image-folder" && (settings.run.resume.empty() || !settings.run.run_dir.empty())) {
    data::check_run_dir_beside_images(settings.data.data_dir,
                                      settings.run.run_dir.empty() ? kDefaultRunDir : settings.run.run_dir);
  }
  auto started = start_epoch_task<ViTTask>(
      settings, opened, kDefaultRunDir, checkpoint::kViTCheckpointKind, checkpoint::read_vit_contents,
      [&](ViTTask& task, const checkpoint::CheckpointReader& parent) {
        return init_vit_from(parent, task.model(), settings.model.channels(), task.class_names());
      });
  auto& task = *started.task;
  ViTTrainResult result;
  result.parameters = count_parameters(task.model()).parameters;
  result.run_dir = started.run.run.run_dir;
  if (settings.run.dry_run) {
    result.stopped_by = "dry-run";
    return result;
  }
  const auto done = started.train(settings);
  result.images_per_s = done.examples_per_s;
  result.test_accuracy = task.test_accuracy();
  result.test_loss = task.test_loss();
  result.val_accuracy = task.val_accuracy();
  result.val_loss = task.val_loss();
  result.take(done);
  return result;
}

std::string ViTTrainResult::json(const std::string& precision) const {
  return run_result_json(*this, precision, [this](util::JsonWriter& json) {
    json.field("images_per_s", images_per_s)
        .field("test_accuracy", test_accuracy)
        .field("test_loss", test_loss)
        .field("val_accuracy", val_accuracy)
        .field("val_loss", val_loss);
  });
}

}  // namespace dls::train

// ViT training: the ViTTask on the shared training loop.
#include "dls/train/tasks/vit_trainer.h"

#include <memory>

#include <spdlog/spdlog.h>

#include "dls/checkpoint/vit_checkpoint.h"
#include "dls/models/seq2seq.h"  // count_parameters
#include "dls/train/run_start.h"
#include "dls/train/training_loop.h"
#include "train/tasks/init_plans.h"
#include "train/tasks/vit_task.h"

namespace dls::train {

ViTTrainResult train_vit(const settings::ViTTrainSettings& settings) {
  auto run = start_run(settings.run, "runs/vit", checkpoint::kViTCheckpointKind);
  checkpoint::ViTCheckpointContents contents;
  if (run.resume) {
    contents = checkpoint::read_vit_contents(*run.resume);
    spdlog::info("resuming from {} ({} epochs and {} steps done)", run.resume->path(), contents.state.completed_epochs,
                 contents.state.step_in_epoch);
  }
  // --init-from inside the build: a refusal leaves no run directory behind.
  const auto task = run.build_task([&] {
    auto built =
        std::make_unique<ViTTask>(settings, run.resume ? &contents : nullptr, run.resume ? run.resume->path() : "",
                                  run.placement.device, run.placement.workers);
    if (!run.resume && !settings.run.init_from.empty())
      log_init_report(init_vit_from(settings.run.init_from, built->model()));
    return built;
  });
  if (settings.run.dry_run) {
    ViTTrainResult result;
    result.parameters = count_parameters(task->model()).parameters;
    result.stopped_by = "dry-run";
    result.run_dir = run.run.run_dir;
    return result;
  }
  const auto loop = run.loop_options(settings.epochs, settings.optimizer, settings.selection);
  const auto state = run.resume ? ViTTask::loop_state(contents.state) : LoopState{};
  const auto done = run_training(*task, state, loop, std::move(run.resume));
  ViTTrainResult result;
  result.images_per_s = done.examples_per_s;
  result.test_accuracy = task->test_accuracy();
  result.test_loss = task->test_loss();
  result.val_accuracy = task->val_accuracy();
  result.val_loss = task->val_loss();
  result.take(done);
  result.parameters = count_parameters(task->model()).parameters;
  result.run_dir = run.run.run_dir;
  return result;
}

std::string ViTTrainResult::json(const std::string& precision) const {
  return run_result_json(*this, precision, [this](util::JsonWriter& json) {
    json.key("images_per_s")
        .value(images_per_s)
        .key("test_accuracy")
        .value(test_accuracy)
        .key("test_loss")
        .value(test_loss)
        .key("val_accuracy")
        .value(val_accuracy)
        .key("val_loss")
        .value(val_loss);
  });
}

}  // namespace dls::train

// ViT training: the ViTTask on the shared training loop.
#include "dls/train/vit_trainer.h"

#include <memory>

#include <spdlog/spdlog.h>

#include "dls/checkpoint/checkpoint.h"
#include "dls/checkpoint/checkpoint_files.h"
#include "dls/checkpoint/vit_checkpoint.h"
#include "dls/models/seq2seq.h"  // count_parameters
#include "training_support.h"
#include "vit_task.h"

namespace dls::train {

ViTTrainResult train_vit(const checkpoint::ViTTrainSettings& settings, const ViTRunControl& control) {
  LoopOptions loop;  // its clock starts now: data loading counts in wall times and --time-limit
  auto placement = place_training(control.device, control.precision, control.workers, control.parallel);
  auto& dist = placement.dist;
  loop.device = placement.device;
  loop.workers = placement.workers;
  loop.precision = control.precision;
  const std::string default_run_dir = control.run_dir.empty() ? "runs/vit" : control.run_dir;
  const std::string resume = control.resume.empty() ? resume_after_restart(default_run_dir) : control.resume;
  const std::string run_dir = !control.run_dir.empty() ? control.run_dir
                              : !resume.empty()        ? run_dir_of(resume)
                                                       : default_run_dir;
  if (resume.empty() && !control.dry_run && dist.is_main()) claim_run_directory(run_dir, control.overwrite);
  std::unique_ptr<checkpoint::CheckpointReader> reader;
  checkpoint::ViTCheckpointContents contents;
  if (!resume.empty()) {
    reader = std::make_unique<checkpoint::CheckpointReader>(checkpoint::latest_checkpoint(resume),
                                                            checkpoint::kViTCheckpointKind);
    contents = checkpoint::read_vit_contents(*reader);
    spdlog::info("resuming from {} ({} epochs and {} steps done)", reader->path(), contents.state.completed_epochs,
                 contents.state.step_in_epoch);
  }
  ViTTask task(settings, reader ? &contents : nullptr, reader ? reader->path() : "", loop.device, loop.workers);
  if (control.dry_run) {
    ViTTrainResult result;
    result.parameters = count_parameters(task.model()).parameters;
    result.stopped_by = "dry-run";
    return result;
  }
  fill_loop_options(loop, run_dir, settings.epochs, settings.optimizer, settings.selection, control, control, &dist);
  const auto state = reader ? ViTTask::loop_state(contents.state) : LoopState{};
  const auto done = run_training(task, state, loop, std::move(reader));
  ViTTrainResult result;
  result.images_per_s = done.examples_per_s;
  result.test_accuracy = task.test_accuracy();
  result.final_loss = done.final_loss;
  result.epochs = done.epochs;
  result.iterations = done.iterations;
  result.wall_s = done.wall_s;
  result.checkpoints = done.checkpoints;
  result.parameters = count_parameters(task.model()).parameters;
  result.stopped_by = done.stopped_by;
  result.parallel = {done.world_size, done.rank, done.backend, done.all_reduce_s};
  return result;
}

}  // namespace dls::train

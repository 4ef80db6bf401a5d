// Language-model training: the LmTask on the shared training loop.
#include "dls/train/lm_trainer.h"

#include <cmath>
#include <memory>

#include <spdlog/spdlog.h>

#include "dls/checkpoint/checkpoint.h"
#include "dls/checkpoint/checkpoint_files.h"
#include "dls/checkpoint/lm_checkpoint.h"
#include "dls/models/seq2seq.h"  // count_parameters
#include "lm_task.h"
#include "training_support.h"

namespace dls::train {

LmTrainResult train_lm(const checkpoint::LmTrainSettings& settings, const LmRunControl& control) {
  LoopOptions loop;  // its clock starts now: data loading counts in wall times and --time-limit
  auto placement = place_training(control.device, control.precision, control.workers, control.parallel);
  auto& dist = placement.dist;
  loop.device = placement.device;
  loop.workers = placement.workers;
  loop.precision = control.precision;
  const std::string default_run_dir = control.run_dir.empty() ? "runs/lm" : control.run_dir;
  const std::string resume = control.resume.empty() ? resume_after_restart(default_run_dir) : control.resume;
  const std::string run_dir = !control.run_dir.empty() ? control.run_dir
                              : !resume.empty()        ? run_dir_of(resume)
                                                       : default_run_dir;
  if (resume.empty() && !control.dry_run && dist.is_main()) claim_run_directory(run_dir, control.overwrite);
  std::unique_ptr<checkpoint::CheckpointReader> reader;
  checkpoint::LmCheckpointContents contents;
  if (!resume.empty()) {
    reader = std::make_unique<checkpoint::CheckpointReader>(checkpoint::latest_checkpoint(resume),
                                                            checkpoint::kLmCheckpointKind);
    contents = checkpoint::read_lm_contents(*reader);
    spdlog::info("resuming from {} ({} epochs and {} steps done)", reader->path(), contents.state.completed_epochs,
                 contents.state.step_in_epoch);
  }
  LmTask task(settings, reader ? &contents : nullptr, reader ? reader->path() : "", loop.device, loop.workers);
  LmTrainResult result;
  result.parameters = count_parameters(task.model()).parameters;
  result.vocab_size = task.data().vocabulary.size();
  result.run_dir = run_dir;
  if (control.dry_run) {
    result.stopped_by = "dry-run";
    return result;
  }
  if (!reader && dist.is_main()) {
    task.model().to(loop.device);
    result.initial_val_perplexity = task.validate().perplexity();
    spdlog::info("validation perplexity before training: {:.2f}", result.initial_val_perplexity);
  }
  fill_loop_options(loop, run_dir, settings.epochs, settings.optimizer, settings.selection, control, control, &dist);
  const auto state = reader ? LmTask::loop_state(contents.state) : LoopState{};
  const auto done = run_training(task, state, loop, std::move(reader));
  result.sentences_per_s = done.examples_per_s;
  result.final_loss = done.final_loss;
  result.val_nll = task.val_nll();
  result.val_perplexity = std::exp(result.val_nll);
  result.val_word_perplexity = task.val_word_perplexity();
  result.epochs = done.epochs;
  result.iterations = done.iterations;
  result.wall_s = done.wall_s;
  result.checkpoints = done.checkpoints;
  result.stopped_by = done.stopped_by;
  result.parallel = {done.world_size, done.rank, done.backend, done.all_reduce_s};
  return result;
}

}  // namespace dls::train

#include "dls/train/run_start.h"

#include "dls/checkpoint/checkpoint_files.h"
#include "train/training_support.h"

namespace dls::train {

StartedRun start_run(const settings::RunSettings& run, const std::string& default_run_dir,
                     const std::string& checkpoint_kind) {
  StartedRun started;
  started.started = std::chrono::steady_clock::now();
  started.placement = place_training(run.device, run.precision, run.workers, run.parallel);
  started.run = run;
  const std::string asked_dir = run.run_dir.empty() ? default_run_dir : run.run_dir;
  started.run.resume = run.resume.empty() ? resume_after_restart(asked_dir) : run.resume;
  const bool resuming = !started.run.resume.empty();
  started.run.run_dir = !run.run_dir.empty() ? run.run_dir
                        : resuming           ? run_dir_of(started.run.resume)
                                             : default_run_dir;
  if (!run.dry_run && started.placement.dist.is_main()) {
    // Locked before the check for an earlier run, so that of two runs started at once in
    // one directory the second stops here.
    started.lock = std::make_unique<RunDirectoryLock>(started.run.run_dir);
    if (!resuming && !claim_run_directory(started.run.run_dir, run.overwrite).empty()) {
      // The lock went aside with the earlier run: lock the fresh directory.
      started.lock = std::make_unique<RunDirectoryLock>(started.run.run_dir);
    }
  }
  if (resuming) {
    started.resume = std::make_unique<checkpoint::CheckpointReader>(checkpoint::latest_checkpoint(started.run.resume),
                                                                    checkpoint_kind);
  }
  return started;
}

LoopOptions StartedRun::loop_options(std::int64_t epochs, const settings::OptimizerSettings& optimizer,
                                     const settings::SelectionSettings& selection) {
  LoopOptions loop;
  loop.started = started;
  loop.run = run;
  loop.epochs = epochs;
  loop.optimizer = optimizer;
  loop.selection = selection;
  loop.device = placement.device;
  loop.workers = placement.workers;
  loop.dist = &placement.dist;
  return loop;
}

}  // namespace dls::train

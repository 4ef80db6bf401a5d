#include "dls/train/run/run_start.h"
#include "dls/train/run/run_directory.h"

#include <cstdlib>
#include <filesystem>
#include <system_error>

#include <spdlog/spdlog.h>

#include "dls/checkpoint/checkpoint_files.h"
#include "train/training_support.h"

namespace dls::train {

namespace {

namespace fs = std::filesystem;

// The outermost missing folder of `dir`, which creating it creates; "" when it exists.
std::string outermost_missing(const std::string& dir) {
  std::error_code error;
  fs::path path = fs::absolute(dir, error), missing;
  if (error) return "";
  path = path.lexically_normal();
  if (!path.has_filename()) path = path.parent_path();  // "runs/a/" -> "runs/a"
  while (!path.empty() && !fs::exists(path, error) && !error) {
    missing = path;
    if (path.parent_path() == path) break;
    path = path.parent_path();
  }
  return missing.string();
}

}  // namespace

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
                        : resuming           ? checkpoint::run_dir_of(started.run.resume)
                                             : default_run_dir;
  if (!run.dry_run && started.placement.dist.is_main()) {
    // Locked before the check for an earlier run, so that of two runs started at once in
    // one directory the second stops here.
    started.created_dir = outermost_missing(started.run.run_dir);
    started.lock = std::make_unique<RunDirectoryLock>(started.run.run_dir);
    // torchrun restarted the job before its first checkpoint: what the failed attempt left
    // (metrics.csv, the settings) goes aside, and the run starts again.
    const bool restarted_afresh = !resuming && restart_count() > 0;
    if (restarted_afresh) spdlog::warn("restart {} of the job: no checkpoint yet, starting afresh", restart_count());
    if (!resuming && !claim_run_directory(started.run.run_dir, run.overwrite || restarted_afresh).empty()) {
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

void StartedRun::remove_unused_directory() {
  if (created_dir.empty()) return;
  lock.reset();
  std::error_code error;
  fs::path dir = fs::absolute(run.run_dir, error).lexically_normal();
  if (error) return;
  if (!dir.has_filename()) dir = dir.parent_path();
  fs::remove(dir / ".lock", error);
  const fs::path outermost(created_dir);
  // fs::remove takes only an empty folder: whatever another program put there stays.
  while (fs::remove(dir, error) && dir != outermost && dir.parent_path() != dir) dir = dir.parent_path();
  created_dir.clear();
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

int restart_count() {
  const char* restarts = std::getenv("TORCHELASTIC_RESTART_COUNT");
  return restarts == nullptr ? 0 : std::atoi(restarts);
}

std::string resume_after_restart(const std::string& run_dir) {
  if (restart_count() <= 0) return "";
  try {
    const auto newest = checkpoint::latest_checkpoint(run_dir);
    spdlog::warn("restart {} of the job: resuming {} from {}", restart_count(), run_dir, newest);
    return run_dir;
  } catch (const std::exception&) {
    return "";  // nothing saved yet: start afresh
  }
}

}  // namespace dls::train

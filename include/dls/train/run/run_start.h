// What every trainer does first, in one place: place the run (device, precision, batch-chunk
// workers, process group -- parallel/data_parallel.h), decide its run directory and what it
// resumes (--resume, or after a torchrun restart the run directory itself), claim the
// directory (locked against a second training process; a fresh run refused at once when it
// holds an earlier run and no --overwrite), open the checkpoint to resume; then, once the task
// is built, move an earlier run aside (--overwrite) and give the loop its options.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "dls/checkpoint/checkpoint.h"
#include "dls/checkpoint/opened_checkpoint.h"
#include "dls/settings/run_settings.h"
#include "dls/train/parallel/data_parallel.h"
#include "dls/train/run/run_directory.h"
#include "dls/train/loop_state.h"

namespace dls::train {

struct StartedRun {
  // When the invocation began: data loading counts in wall times and --time-limit.
  std::chrono::steady_clock::time_point started;
  TrainingPlacement placement;  // device, batch-chunk workers, process group
  // The run's settings with run_dir resolved: --run-dir, else the resumed checkpoint's run,
  // else the task's default.
  settings::RunSettings run;
  // The checkpoint to continue (it holds the whole file in memory until the loop has read
  // it); nullptr for a fresh run.
  std::unique_ptr<checkpoint::CheckpointReader> resume;
  // Rank 0's hold on the run directory (run_directory.h) while the run lives; none for a
  // dry run and on the other ranks.
  std::unique_ptr<RunDirectoryLock> lock;
  // The outermost folder this start created for the run directory ("" when it existed).
  std::string created_dir;
  // --overwrite (or a torchrun restart of this job before its first checkpoint): an earlier
  // run in the directory goes aside at claim_directory().
  bool overwrite = false;
  // A resume into another directory than its checkpoint's run (--resume RUN --run-dir NEW):
  // a branch of the run, which claims NEW as a fresh run claims its directory.
  bool branch = false;

  // Builds the task with `build` (which returns it in a std::unique_ptr); when that throws,
  // a run directory this start created is removed again (it holds nothing but its lock yet)
  // before the error goes on, so that a run refused at start-up -- a model too big for the
  // memory, data that cannot be read -- leaves no folder behind.
  template <typename Build>
  auto build_task(Build&& build) -> decltype(build()) {
    try {
      return build();
    } catch (...) {
      remove_unused_directory();
      throw;
    }
  }
  // Releases the lock and removes the folders this start created, when they hold nothing
  // else; what anything else put there stays.
  void remove_unused_directory();
  // Once the task is built, on rank 0 of a fresh run: moves an earlier run in the directory
  // aside (`overwrite`; without it start_run refused it already) and locks the fresh one;
  // under torchrun, records the job (.torchrun_job). Nothing for a dry run. Returns where the
  // earlier run went ("" when none went aside).
  std::string claim_directory();

  // The loop's options: `run`, the task's epochs, optimizer and selection, and the placement.
  LoopOptions loop_options(std::int64_t epochs, const settings::OptimizerSettings& optimizer,
                           const settings::SelectionSettings& selection);
};

// Starts a run of checkpoints of kind `checkpoint_kind` (checkpoint/checkpoint.h) whose
// directory defaults to `default_run_dir` (runs/<task>). Throws one-line errors: a device or
// precision this process cannot have, a process group it cannot join, a run directory that
// holds an earlier run (without run.overwrite), a checkpoint that cannot be read. The checkpoint
// the program opened for --resume's settings (`opened_resume`) is taken rather than read again
// when it is the one resumed.
StartedRun start_run(const settings::RunSettings& run, const std::string& default_run_dir,
                     const std::string& checkpoint_kind, checkpoint::OpenedCheckpoint* opened_resume = nullptr);

// How many times torchrun restarted the job (TORCHELASTIC_RESTART_COUNT); 0 outside torchrun.
int restart_count();

// Under torchrun (TORCHELASTIC_RESTART_COUNT set), which job this process belongs to: its
// launcher's host, pid and start time -- torchrun's agent, which outlives the workers it
// restarts; "" otherwise. Rank 0 records it in <run>/.torchrun_job when it starts a run.
inline constexpr const char* kTorchrunJobFile = ".torchrun_job";
std::string torchrun_job();
// Whether <run_dir>/.torchrun_job names this process's job.
bool written_by_this_job(const std::string& run_dir);

// The run directory to resume after torchrun restarted the job (TORCHELASTIC_RESTART_COUNT
// > 0, no --resume given, and `run_dir` holds checkpoints; on the `main_rank`, that this job
// wrote: its .torchrun_job): `run_dir`; otherwise "". A restart before the first checkpoint
// starts the run again, moving what the failed attempt left aside (start_run). An earlier run
// of the user's in `run_dir` is neither resumed nor moved: rank 0 refused it at attempt 0, and
// refuses it at every restart (the other ranks, whose launcher on another machine is another
// process, follow rank 0 and end with it).
std::string resume_after_restart(const std::string& run_dir, bool main_rank);

}  // namespace dls::train

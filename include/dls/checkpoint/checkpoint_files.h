// Where checkpoints are: the file names a run gives them (checkpoint_epoch_NNNN.pt in
// <run>/checkpoints/) and finding them again in a run directory, its checkpoints/ folder,
// or a single file; the run a checkpoint belongs to. Writing them into a run is the trainers'
// business (train/run/run_directory.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace dls::checkpoint {

// "checkpoint_epoch_0007.pt" (at least four digits).
std::string checkpoint_file_name(std::int64_t epoch);

// Whether `name` (a file name, no folder) has the form checkpoint_file_name() gives.
bool is_checkpoint_file_name(const std::string& name);

// The epoch in such a name; -1 for any other name.
std::int64_t checkpoint_epoch(const std::string& name);

// Orders file names (or paths) by their checkpoint epoch -- numerically, so that
// checkpoint_epoch_10000.pt comes after checkpoint_epoch_9999.pt -- other names first, by text.
bool checkpoint_order(const std::string& a, const std::string& b);

// Checkpoint files of a run directory, its checkpoints/ folder, or a single file, sorted
// by epoch (checkpoint_order). Throws std::runtime_error naming the path when it does not exist
// or holds no checkpoint.
std::vector<std::string> find_checkpoints(const std::string& dir_or_file);

// Where a run stopped: the newest of find_checkpoints(dir_or_file), or the run's best.pt when
// that holds more steps -- a run saving every K epochs (--checkpoint-every) writes best.pt
// alone in the epochs between, so a run stopped there has its latest state only in best.pt --
// or when it is the run's only checkpoint. A file is itself. Throws std::runtime_error as
// find_checkpoints() does when there is neither.
std::string latest_checkpoint(const std::string& dir_or_file);

// Whether `best` (a run's best.pt written alone) holds a later state than `numbered`, one of
// the run's numbered checkpoints: by epochs, at one epoch by steps (only best.pt is read
// unless the epochs are equal). A best.pt that does not read is not later (a warning says so).
bool best_is_later(const std::string& best, const std::string& numbered);

// The run a checkpoint belongs to: <run>/checkpoints/x.pt, <run>/x.pt (best.pt) and the
// folder <run>/checkpoints are <run>; any other directory is itself; a file without a
// folder is in ".".
std::string run_dir_of(const std::string& checkpoint_or_run);

// What a report writes beside a checkpoint starts with (its plots, its table): "" for a run's
// (run_dir_of holds checkpoints/ or metrics.csv), "NAME." for a file standing alone
// (NAME.pt, an import's output), whose folder is the user's, not a run's.
std::string report_file_prefix(const std::string& checkpoint_or_run);

}  // namespace dls::checkpoint

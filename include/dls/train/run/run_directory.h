// The files of a training run: <run>/checkpoints/checkpoint_epoch_NNNN.pt, metrics.csv,
// plots. The program only ever deletes checkpoints it wrote itself, which it records in
// <run>/checkpoints/MANIFEST. Finding the checkpoints of a run: checkpoint/checkpoint_files.h.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace dls::train {

class RunDirectory {
 public:
  // Creates the directory (and its checkpoints/ folder) when missing.
  explicit RunDirectory(std::string path);

  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const;  // <run>/<name>
  std::string checkpoint_path(std::int64_t epoch) const;

  // Records `path` as written by this program (call after a successful save).
  void record_checkpoint(const std::string& path);
  // Deletes the oldest checkpoints listed in the MANIFEST until `keep_last` remain;
  // never touches files it did not record, nor `spare` (a file name: the one best.pt links
  // to), which is kept beside the newest keep_last. keep_last <= 0: keep everything.
  void prune_checkpoints(int keep_last, const std::string& spare = "");

 private:
  std::vector<std::string> manifest() const;
  std::string path_;
};

// One training process at a time in a run directory: an exclusive lock (flock) on
// <run>/.lock, held while the object lives and released by the kernel when the process ends
// however it ends, so that no stale lock is left behind. Two runs started at the same moment
// in one directory would otherwise both pass the check for an earlier run and write
// checkpoints over each other's.
class RunDirectoryLock {
 public:
  // Creates `dir` when missing and takes the lock, or throws std::runtime_error (one line)
  // when another process holds it (its pid, read from the file, is named).
  explicit RunDirectoryLock(const std::string& dir);
  ~RunDirectoryLock();
  RunDirectoryLock(const RunDirectoryLock&) = delete;
  RunDirectoryLock& operator=(const RunDirectoryLock&) = delete;

 private:
  int fd_ = -1;
};

// What an earlier run left in `dir`: "" when nothing (no metrics.csv, no checkpoint, no
// MANIFEST), else a description such as "metrics.csv and 3 checkpoints".
std::string earlier_run(const std::string& dir);

// Renames `dir` to the first free "<dir>.old-N" (N = 1, 2, ...) and returns that name; the
// run's files are kept as they are. Throws std::runtime_error naming both paths.
std::string move_run_aside(const std::string& dir);

// What a start would find wrong with `dir`, checked without creating or locking anything (a
// dry run's check): throws std::runtime_error (one line) when it is a file, or when the folder
// it would be created in is not a writable directory.
void check_run_directory_usable(const std::string& dir);

// A fresh run's check of its run directory (see LoopOptions::overwrite): throws
// std::runtime_error when it holds an earlier run and `overwrite` is off, else moves that run
// aside and returns where to ("" when nothing was there). run_training does it itself (rank
// 0); start_run() does it before any data is read, so that a refused run fails at once.
std::string claim_run_directory(const std::string& run_dir, bool overwrite);

}  // namespace dls::train

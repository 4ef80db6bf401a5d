// The files of a training run: <run>/checkpoints/checkpoint_epoch_NNNN.pt, metrics.csv,
// plots. The program only ever deletes checkpoints it wrote itself, which it records in
// <run>/checkpoints/MANIFEST.
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
  // never touches files it did not record. keep_last <= 0: keep everything.
  void prune_checkpoints(int keep_last);

 private:
  std::vector<std::string> manifest() const;
  std::string path_;
};

// Checkpoint files of a run directory, its checkpoints/ folder, or a single file, sorted
// by epoch (name order). Throws std::runtime_error naming the path when it does not exist
// or holds no checkpoint.
std::vector<std::string> find_checkpoints(const std::string& dir_or_file);

// The newest of find_checkpoints(dir_or_file).
std::string latest_checkpoint(const std::string& dir_or_file);

}  // namespace dls::train

#include "dls/checkpoint/run_id.h"

#include <spdlog/spdlog.h>

#include <filesystem>
#include <optional>
#include <stdexcept>
#include <vector>

#include "dls/checkpoint/checkpoint_files.h"
#include "dls/util/file_io.h"

namespace dls::checkpoint {

namespace fs = std::filesystem;

namespace {

// Whether a checkpoint carrying run id `theirs` is the run's whose RUN_ID is `here`: also when
// either has none (runs and checkpoints from before run ids).
bool of_this_run(const std::string& theirs, const std::string& here) {
  return here.empty() || theirs.empty() || theirs == here;
}

std::string skipped_line(const std::string& file, const std::string& theirs, const std::string& run_dir,
                         const std::string& here) {
  return "skipped: " + file + ": a checkpoint of run " + theirs + ", not of " + run_dir + " (its RUN_ID is " + here +
         ")";
}

}  // namespace

std::string run_id_in(const CheckpointReader& reader) {
  return reader.has_text(kRunIdText) ? reader.text(kRunIdText) : "";
}

std::string run_directory_of(const std::string& dir) {
  std::error_code error;
  const auto resolved = fs::weakly_canonical(dir, error);
  return run_dir_of(error ? dir : resolved.string());
}

std::string read_run_id(const std::string& run_dir) {
  const auto path = fs::path(run_dir) / kRunIdFile;
  std::error_code error;
  if (!fs::exists(path, error)) return "";
  std::string id = util::read_file(path.string());
  while (!id.empty() && (id.back() == '\n' || id.back() == '\r')) id.pop_back();
  return id;
}

RunMembership::RunMembership(const std::string& checkpoint_or_run) {
  std::error_code error;
  if (!fs::is_directory(checkpoint_or_run, error)) return;  // a file named is read as named
  run_dir_ = run_directory_of(checkpoint_or_run);
  here_ = read_run_id(run_dir_);
}

std::string RunMembership::left_out(const CheckpointReader& reader) const {
  const std::string theirs = run_id_in(reader);
  return of_this_run(theirs, here_) ? "" : skipped_line(reader.path(), theirs, run_dir_, here_);
}

std::string run_checkpoints_kind(const std::string& checkpoint_or_run, const std::vector<std::string>& files) {
  std::error_code error;
  const std::string here =
      fs::is_directory(checkpoint_or_run, error) ? read_run_id(run_directory_of(checkpoint_or_run)) : "";
  if (here.empty()) return checkpoints_kind(checkpoint_or_run, files);
  for (auto file = files.rbegin(); file != files.rend(); ++file) {
    try {
      const CheckpointReader reader(*file);
      if (of_this_run(run_id_in(reader), here)) return reader.kind();
    } catch (const CheckpointError&) {
      if (files.size() == 1) throw;
    }
  }
  throw std::runtime_error(checkpoint_or_run + ": no readable checkpoint of this run (RUN_ID " + here + ")");
}

CheckpointReader open_run_checkpoint(const std::string& checkpoint_or_run, const std::string& expected_kind,
                                     RunCheckpoint pick) {
  std::error_code error;
  if (!fs::is_directory(checkpoint_or_run, error)) return CheckpointReader(checkpoint_or_run, expected_kind);
  const std::string run_dir = run_directory_of(checkpoint_or_run);
  const std::string here = read_run_id(run_dir);
  const auto open_own = [&](const std::string& file) -> std::optional<CheckpointReader> {
    CheckpointReader reader(file);  // its kind checked once it is the run's: another run's is passed over
    const std::string theirs = run_id_in(reader);
    if (of_this_run(theirs, here)) {
      if (!expected_kind.empty()) reader.check_kind(expected_kind);
      return reader;
    }
    spdlog::warn("{}", skipped_line(file, theirs, run_dir, here));
    return std::nullopt;
  };
  const auto best = fs::path(run_dir) / "best.pt";
  const bool has_best = fs::is_regular_file(best, error);
  if (pick == RunCheckpoint::kBestOrNewest && has_best) {
    if (auto reader = open_own(best.string())) return std::move(*reader);
  }
  std::vector<std::string> files;  // oldest first
  try {
    files = find_checkpoints(checkpoint_or_run);
  } catch (const std::runtime_error&) {
    if (pick == RunCheckpoint::kBestOrNewest || !has_best) throw;
  }
  std::optional<CheckpointReader> newest;  // the run's own newest numbered checkpoint
  for (auto file = files.rbegin(); file != files.rend() && !newest; ++file) newest = open_own(*file);
  // kNewest: where the run stopped, which is its best.pt when that was written alone later
  // (checkpoint_files.h: latest_checkpoint, here against the run's own checkpoints).
  if (pick == RunCheckpoint::kNewest && has_best &&
      (!newest || (!fs::equivalent(best, newest->path(), error) && best_is_later(best.string(), newest->path())))) {
    if (auto reader = open_own(best.string())) return std::move(*reader);
  }
  if (newest) return std::move(*newest);
  throw std::runtime_error(checkpoint_or_run + ": no checkpoint of this run (RUN_ID " + here +
                           "): every one there was written by another run");
}

}  // namespace dls::checkpoint

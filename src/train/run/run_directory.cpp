#include "dls/train/run/run_directory.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <spdlog/spdlog.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "dls/checkpoint/checkpoint_files.h"
#include "dls/util/file_io.h"

namespace dls::train {

namespace fs = std::filesystem;

RunDirectory::RunDirectory(std::string path) : path_(std::move(path)) {
  std::error_code error;
  fs::create_directories(fs::path(path_) / "checkpoints", error);
  if (error) throw std::runtime_error(path_ + ": cannot create run directory (" + error.message() + ")");
}

std::string RunDirectory::file(const std::string& name) const { return (fs::path(path_) / name).string(); }

std::string RunDirectory::checkpoint_path(std::int64_t epoch) const {
  return (fs::path(path_) / "checkpoints" / checkpoint::checkpoint_file_name(epoch)).string();
}

std::vector<std::string> RunDirectory::manifest() const {
  std::vector<std::string> names;
  std::ifstream in(fs::path(path_) / "checkpoints" / "MANIFEST");
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && std::find(names.begin(), names.end(), line) == names.end()) names.push_back(line);
  }
  return names;
}

void RunDirectory::record_checkpoint(const std::string& path) {
  const std::string name = fs::path(path).filename().string();
  auto names = manifest();
  if (std::find(names.begin(), names.end(), name) != names.end()) return;
  names.push_back(name);
  std::string text;
  for (const auto& n : names) text += n + "\n";
  util::write_text_atomically((fs::path(path_) / "checkpoints" / "MANIFEST").string(), text);
}

void RunDirectory::prune_checkpoints(int keep_last, const std::string& spare) {
  if (keep_last <= 0) return;
  const auto names = manifest();
  // The newest keep_last by epoch number, not text (checkpoint_epoch_10000.pt is newer than
  // checkpoint_epoch_9999.pt), and `spare` whether among them or not.
  std::vector<std::string> epochs;
  for (const auto& n : names) {
    if (checkpoint::is_checkpoint_file_name(n)) epochs.push_back(n);
  }
  std::sort(epochs.begin(), epochs.end(), checkpoint::checkpoint_order);
  const std::size_t excess =
      epochs.size() > static_cast<std::size_t>(keep_last) ? epochs.size() - static_cast<std::size_t>(keep_last) : 0;
  const std::vector<std::string> older(epochs.begin(), epochs.begin() + static_cast<std::ptrdiff_t>(excess));
  std::string text;
  for (const auto& n : names) {
    const bool pruned = n != spare && std::find(older.begin(), older.end(), n) != older.end();
    if (pruned) {
      std::error_code ignored;
      fs::remove(fs::path(path_) / "checkpoints" / n, ignored);
    } else {
      text += n + "\n";
    }
  }
  util::write_text_atomically((fs::path(path_) / "checkpoints" / "MANIFEST").string(), text);
}

namespace {

// The checkpoint files in run/checkpoints (a run stopped before its first has none).
std::size_t checkpoint_count(const fs::path& run) {
  std::error_code error;
  std::size_t checkpoints = 0;
  if (fs::is_directory(run / "checkpoints", error)) {
    for (const auto& entry : fs::directory_iterator(run / "checkpoints", error)) {
      if (checkpoint::is_checkpoint_file_name(entry.path().filename().string())) ++checkpoints;
    }
  }
  return checkpoints;
}

}  // namespace

std::string earlier_run(const std::string& dir) {
  const fs::path run(dir);
  std::error_code error;
  const bool metrics = fs::exists(run / "metrics.csv", error);
  const std::size_t checkpoints = checkpoint_count(run);
  const bool manifest = fs::exists(run / "checkpoints" / "MANIFEST", error);
  std::string what;
  if (metrics) what = "metrics.csv";
  if (checkpoints > 0) {
    what += (what.empty() ? "" : " and ") + std::to_string(checkpoints) + " checkpoint" + (checkpoints > 1 ? "s" : "");
  } else if (manifest) {
    what += (what.empty() ? "" : " and ") + std::string("a checkpoint MANIFEST");
  }
  return what;
}

std::string move_run_aside(const std::string& dir) {
  const std::string base = fs::path(dir).lexically_normal().string();
  const std::string trimmed = base.size() > 1 && base.back() == '/' ? base.substr(0, base.size() - 1) : base;
  for (int n = 1; n < 1000000; ++n) {
    const std::string aside = trimmed + ".old-" + std::to_string(n);
    std::error_code error;
    if (fs::exists(aside, error)) continue;
    fs::rename(trimmed, aside, error);
    if (error)
      throw std::runtime_error(dir + ": cannot move the earlier run aside to " + aside + " (" + error.message() + ")");
    return aside;
  }
  throw std::runtime_error(dir + ": no free name to move the earlier run aside to");
}

RunDirectoryLock::RunDirectoryLock(const std::string& dir) {
  std::error_code error;
  fs::create_directories(dir, error);
  if (error) throw std::runtime_error(dir + ": cannot create the run directory (" + error.message() + ")");
  const std::string path = (fs::path(dir) / ".lock").string();
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) throw std::runtime_error(path + ": cannot open the run directory's lock (" + std::strerror(errno) + ")");
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    char holder[32] = {};
    const auto got = ::pread(fd_, holder, sizeof(holder) - 1, 0);
    ::close(fd_);
    fd_ = -1;
    std::string pid = got > 0 ? std::string(holder, static_cast<std::size_t>(got)) : "";
    pid = pid.substr(0, pid.find('\n'));
    throw std::runtime_error(dir + ": another training process" + (pid.empty() ? "" : " (pid " + pid + ")") +
                             " is using this run directory; wait for it to end or choose another --run-dir");
  }
  const std::string own = std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd_, 0) != 0 || ::pwrite(fd_, own.data(), own.size(), 0) < 0) {
    spdlog::debug("{}: could not write the pid ({})", path, std::strerror(errno));  // the lock holds anyway
  }
}

RunDirectoryLock::~RunDirectoryLock() {
  if (fd_ >= 0) ::close(fd_);  // releases the lock; the file stays (removing it would race)
}

void check_run_directory_usable(const std::string& dir) {
  std::error_code error;
  fs::path path = fs::absolute(dir, error).lexically_normal();
  if (error) throw std::runtime_error(dir + ": cannot resolve the run directory (" + error.message() + ")");
  if (!path.has_filename()) path = path.parent_path();  // "runs/a/" -> "runs/a"
  if (fs::exists(path, error) && !fs::is_directory(path, error)) {
    throw std::runtime_error(dir + ": the run directory is a file, not a directory; choose another --run-dir");
  }
  // The nearest folder that exists is the one a start writes into (creating the rest).
  fs::path existing = path;
  while (!fs::exists(existing, error) && existing.has_parent_path() && existing.parent_path() != existing) {
    existing = existing.parent_path();
  }
  if (!fs::is_directory(existing, error)) {
    throw std::runtime_error(dir + ": cannot create the run directory (" + existing.string() + " is not a directory)");
  }
  if (::access(existing.c_str(), W_OK | X_OK) != 0) {
    throw std::runtime_error(dir + ": cannot create the run directory (" + existing.string() + ": " +
                             std::strerror(errno) + ")");
  }
}

std::string claim_run_directory(const std::string& run_dir, bool overwrite) {
  const std::string earlier = earlier_run(run_dir);
  if (earlier.empty()) return "";
  if (!overwrite && checkpoint_count(run_dir) == 0) {  // stopped before its first checkpoint: --resume has nothing
    throw std::runtime_error(run_dir + " already holds a training run that stopped before its first checkpoint (" +
                             earlier +
                             "): give --overwrite to move it aside and start again, or choose another "
                             "--run-dir");
  }
  if (!overwrite) {
    throw std::runtime_error(run_dir + " already holds a training run (" + earlier + "): continue it with --resume " +
                             run_dir + ", choose another --run-dir, or give --overwrite to move it aside");
  }
  const auto aside = move_run_aside(run_dir);
  spdlog::warn("moved the earlier run in {} aside to {}", run_dir, aside);
  return aside;
}

}  // namespace dls::train

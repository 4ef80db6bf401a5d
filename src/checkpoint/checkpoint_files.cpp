#include "dls/checkpoint/checkpoint_files.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <regex>
#include <stdexcept>
#include <system_error>

#include <spdlog/spdlog.h>

#include "dls/checkpoint/checkpoint.h"
#include "dls/checkpoint/run_state.h"

namespace dls::checkpoint {

namespace fs = std::filesystem;

std::string checkpoint_file_name(std::int64_t epoch) {
  char name[64];
  std::snprintf(name, sizeof(name), "checkpoint_epoch_%04lld.pt", static_cast<long long>(epoch));
  return name;
}

bool is_checkpoint_file_name(const std::string& name) {
  static const std::regex pattern(R"(checkpoint_epoch_\d{4,}\.pt)");
  return std::regex_match(name, pattern);
}

std::int64_t checkpoint_epoch(const std::string& name) {
  const std::string file = fs::path(name).filename().string();
  if (!is_checkpoint_file_name(file)) return -1;
  const std::string digits = file.substr(17, file.size() - 17 - 3);  // checkpoint_epoch_ ... .pt
  // More digits than an int64 holds cannot be a name this program wrote.
  return digits.size() > 18 ? -1 : std::stoll(digits);
}

bool checkpoint_order(const std::string& a, const std::string& b) {
  const auto epoch_a = checkpoint_epoch(a), epoch_b = checkpoint_epoch(b);
  return epoch_a != epoch_b ? epoch_a < epoch_b : a < b;
}

namespace {

// "; --overwrite moved the run that was here to RUN.old-2": the newest DIR.old-N beside `dir`
// that holds checkpoints (a run fine-tuned in place and restarted before its first checkpoint
// looked in DIR for the weights that had gone aside); "" when there is none.
std::string moved_aside_note(const std::string& dir) {
  fs::path base = fs::path(dir).lexically_normal();
  if (!base.has_filename()) base = base.parent_path();
  std::error_code error;
  std::string newest;
  int newest_n = 0;
  for (int n = 1; n < 1000; ++n) {
    const fs::path aside = base.string() + ".old-" + std::to_string(n);
    if (!fs::exists(aside, error)) break;
    const fs::path folder = fs::is_directory(aside / "checkpoints", error) ? aside / "checkpoints" : aside;
    for (const auto& entry : fs::directory_iterator(folder, error)) {
      if (is_checkpoint_file_name(entry.path().filename().string())) {
        newest = aside.string();
        newest_n = n;
        break;
      }
    }
  }
  return newest_n > 0 ? "; --overwrite moved the run that was here to " + newest : "";
}

}  // namespace

std::vector<std::string> find_checkpoints(const std::string& dir_or_file) {
  const fs::path path(dir_or_file);
  if (!fs::exists(path)) throw std::runtime_error(dir_or_file + ": no such file or directory");
  if (fs::is_regular_file(path)) return {dir_or_file};
  const fs::path folder = fs::is_directory(path / "checkpoints") ? path / "checkpoints" : path;
  std::vector<std::string> files;
  for (const auto& entry : fs::directory_iterator(folder)) {
    if (entry.is_regular_file() && is_checkpoint_file_name(entry.path().filename().string())) {
      files.push_back(entry.path().string());
    }
  }
  if (files.empty()) {
    throw std::runtime_error(dir_or_file + ": no checkpoint files (checkpoint_epoch_NNNN.pt)" +
                             moved_aside_note(dir_or_file));
  }
  std::sort(files.begin(), files.end(), checkpoint_order);
  return files;
}

// At one epoch -- the numbered file saved mid-epoch, best.pt at its end -- the steps decide.
bool best_is_later(const std::string& best, const std::string& numbered) {
  RunState best_state;
  try {
    best_state = RunState::from_settings(CheckpointReader(best).settings());
  } catch (const std::exception& unreadable) {
    spdlog::warn("{}; {} is where the run stopped", unreadable.what(), numbered);
    return false;
  }
  const auto numbered_epoch = checkpoint_epoch(numbered);
  if (best_state.file_epoch() != numbered_epoch) return best_state.file_epoch() > numbered_epoch;
  return best_state.global_step > RunState::from_settings(CheckpointReader(numbered).settings()).global_step;
}

std::string latest_checkpoint(const std::string& dir_or_file) {
  std::error_code error;
  if (fs::is_regular_file(dir_or_file, error)) return dir_or_file;
  const std::string best = (fs::path(run_dir_of(dir_or_file)) / "best.pt").string();
  const bool has_best = fs::is_regular_file(best, error);
  std::vector<std::string> files;
  try {
    files = find_checkpoints(dir_or_file);
  } catch (const std::runtime_error&) {
    if (!has_best || !fs::is_directory(dir_or_file, error)) throw;
    return best;  // stopped before its first numbered checkpoint
  }
  if (!has_best) return files.back();
  for (const auto& file : files) {
    if (fs::equivalent(file, best, error)) return files.back();  // best.pt links a numbered one
  }
  return best_is_later(best, files.back()) ? best : files.back();
}

std::string run_dir_of(const std::string& checkpoint_or_run) {
  fs::path path(checkpoint_or_run);
  if (!path.empty() && !path.has_filename()) path = path.parent_path();  // "run/checkpoints/"
  std::error_code error;
  if (!fs::is_directory(path, error)) path = path.parent_path();  // a file: its folder
  if (path.filename() == "checkpoints") path = path.parent_path();
  return path.empty() ? "." : path.string();
}

std::string report_file_prefix(const std::string& checkpoint_or_run) {
  std::error_code error;
  if (fs::is_directory(checkpoint_or_run, error)) return "";
  const fs::path run = run_dir_of(checkpoint_or_run);
  if (fs::exists(run / "checkpoints", error) || fs::exists(run / "metrics.csv", error)) return "";
  return fs::path(checkpoint_or_run).stem().string() + ".";
}

}  // namespace dls::checkpoint

#include "dls/train/run_directory.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <stdexcept>

#include "dls/util/file_io.h"

namespace dls::train {

namespace fs = std::filesystem;

namespace {
const std::regex kCheckpointName(R"(checkpoint_epoch_\d{4,}\.pt)");
}

RunDirectory::RunDirectory(std::string path) : path_(std::move(path)) {
  std::error_code error;
  fs::create_directories(fs::path(path_) / "checkpoints", error);
  if (error) throw std::runtime_error(path_ + ": cannot create run directory (" + error.message() + ")");
}

std::string RunDirectory::file(const std::string& name) const { return (fs::path(path_) / name).string(); }

std::string RunDirectory::checkpoint_path(std::int64_t epoch) const {
  char name[64];
  std::snprintf(name, sizeof(name), "checkpoint_epoch_%04lld.pt", static_cast<long long>(epoch));
  return (fs::path(path_) / "checkpoints" / name).string();
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

void RunDirectory::prune_checkpoints(int keep_last) {
  if (keep_last <= 0) return;
  auto names = manifest();
  std::sort(names.begin(), names.end());
  std::vector<std::string> kept;
  const std::size_t excess = names.size() > static_cast<std::size_t>(keep_last)
                                 ? names.size() - static_cast<std::size_t>(keep_last)
                                 : 0;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i < excess && std::regex_match(names[i], kCheckpointName)) {
      std::error_code ignored;
      fs::remove(fs::path(path_) / "checkpoints" / names[i], ignored);
    } else {
      kept.push_back(names[i]);
    }
  }
  std::string text;
  for (const auto& n : kept) text += n + "\n";
  util::write_text_atomically((fs::path(path_) / "checkpoints" / "MANIFEST").string(), text);
}

std::vector<std::string> find_checkpoints(const std::string& dir_or_file) {
  const fs::path path(dir_or_file);
  if (!fs::exists(path)) throw std::runtime_error(dir_or_file + ": no such file or directory");
  if (fs::is_regular_file(path)) return {dir_or_file};
  const fs::path folder = fs::is_directory(path / "checkpoints") ? path / "checkpoints" : path;
  std::vector<std::string> files;
  for (const auto& entry : fs::directory_iterator(folder)) {
    if (entry.is_regular_file() && std::regex_match(entry.path().filename().string(), kCheckpointName)) {
      files.push_back(entry.path().string());
    }
  }
  if (files.empty()) {
    throw std::runtime_error(dir_or_file + ": no checkpoint files (checkpoint_epoch_NNNN.pt)");
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::string latest_checkpoint(const std::string& dir_or_file) {
  return find_checkpoints(dir_or_file).back();
}

}  // namespace dls::train

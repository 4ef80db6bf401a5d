#include "dls/checkpoint/checkpoint_files.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <regex>
#include <stdexcept>

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
    throw std::runtime_error(dir_or_file + ": no checkpoint files (checkpoint_epoch_NNNN.pt)");
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::string latest_checkpoint(const std::string& dir_or_file) {
  return find_checkpoints(dir_or_file).back();
}

}  // namespace dls::checkpoint

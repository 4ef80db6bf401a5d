// A folder for a program's outputs, made when missing, with a one-line error naming it when
// it cannot be: std::filesystem's own reads "filesystem error: cannot create directories:
// File exists [x]".
#pragma once

#include <filesystem>
#include <stdexcept>
#include <string>
#include <system_error>

namespace dls::util {

// Makes `dir` and its parents. Throws std::runtime_error "[FLAG ]DIR: a file, not a folder",
// "[FLAG ]DIR: PART is a file, not a folder" or "[FLAG ]DIR: cannot create the folder
// (Permission denied)"; `flag` names the option that gave `dir` ("--out"), or is empty.
inline void create_folder(const std::string& dir, const std::string& flag = "") {
  namespace fs = std::filesystem;
  std::error_code error;
  if (fs::is_directory(dir, error)) return;
  fs::create_directories(dir, error);
  if (!error && fs::is_directory(dir, error)) return;
  const std::string where = (flag.empty() ? "" : flag + " ") + dir + ": ";
  std::error_code ignored;
  for (fs::path part = dir; !part.empty() && part != part.parent_path(); part = part.parent_path()) {
    if (fs::exists(part, ignored) && !fs::is_directory(part, ignored)) {
      throw std::runtime_error(where + (part == fs::path(dir) ? "" : part.string() + " is ") + "a file, not a folder");
    }
  }
  throw std::runtime_error(where + "cannot create the folder (" + (error ? error.message() : "unknown") + ")");
}

}  // namespace dls::util

// A path as the file system resolves it: absolute, through links, without "." and ".." and a
// trailing "/" ("runs/./a/" and a link to it are one folder), for telling whether two paths
// name the same place. A path that does not exist yet resolves as far as it does.
#pragma once

#include <filesystem>
#include <string>
#include <system_error>

namespace dls::util {

// `path` resolved; absolute and normal when the file system cannot resolve it.
inline std::string resolved_path(const std::string& path) {
  std::error_code error;
  auto canonical = std::filesystem::weakly_canonical(std::filesystem::absolute(path), error);
  if (error) return std::filesystem::absolute(path).lexically_normal().string();
  if (!canonical.has_filename()) canonical = canonical.parent_path();  // "dir/" -> "dir"
  return canonical.string();
}

}  // namespace dls::util

#include "dls/serve/page_files.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <stdexcept>

namespace dls::serve {

namespace fs = std::filesystem;

std::string page_file(const std::string& page_dir, const std::string& request_path) {
  if (page_dir.empty() || request_path.empty() || request_path[0] != '/') return "";
  std::string name = request_path.substr(1);
  if (name.empty()) name = "index.html";
  // One plain name: no folder, no "..", no hidden file, nothing a shell or a URL escapes.
  const bool plain = std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
           c == '-';
  });
  if (!plain || name[0] == '.') return "";
  const fs::path file = fs::path(page_dir) / name;
  std::error_code error;
  if (!fs::is_regular_file(file, error)) return "";
  // A link may point anywhere; only into the folder itself is it the page's.
  const auto target = fs::canonical(file, error);
  if (error || target.parent_path() != fs::canonical(page_dir, error) || error) return "";
  return file.string();
}

std::string content_type(const std::string& file) {
  static const std::map<std::string, std::string> types = {
      {".html", "text/html; charset=utf-8"},
      {".htm", "text/html; charset=utf-8"},
      {".js", "text/javascript; charset=utf-8"},
      {".mjs", "text/javascript; charset=utf-8"},
      {".css", "text/css; charset=utf-8"},
      {".json", "application/json"},
      {".png", "image/png"},
      {".svg", "image/svg+xml"},
      {".ico", "image/x-icon"},
      {".txt", "text/plain; charset=utf-8"},
  };
  auto extension = fs::path(file).extension().string();
  std::transform(extension.begin(), extension.end(), extension.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  const auto it = types.find(extension);
  return it == types.end() ? "application/octet-stream" : it->second;
}

std::string find_page_dir(const std::string& page_dir, const std::string& program_path,
                          const std::string& source_page_dir) {
  std::error_code error;
  if (!page_dir.empty()) {
    if (!fs::is_directory(page_dir, error)) throw std::runtime_error("--page-dir " + page_dir + ": not a folder");
    return page_dir;
  }
  if (!program_path.empty()) {
    const auto program = fs::canonical(fs::path(program_path), error);
    if (!error) {
      const auto installed = program.parent_path().parent_path() / "share" / "dlstudio-cpp" / "page";
      if (fs::is_directory(installed, error)) return installed.string();
    }
  }
  if (!source_page_dir.empty() && fs::is_directory(source_page_dir, error)) return source_page_dir;
  return "";
}

}  // namespace dls::serve

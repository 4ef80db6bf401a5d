#include "dls/data/data_folder.h"

#include <cstdlib>
#include <system_error>

namespace dls::data {

namespace {

const char* env(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? value : nullptr;
}

}  // namespace

std::filesystem::path default_data_dir() {
  if (const char* dir = env("DLS_DATA_DIR")) return dir;
  if (const char* xdg = env("XDG_DATA_HOME")) return std::filesystem::path(xdg) / "dlstudio-cpp";
  if (const char* home = env("HOME")) return std::filesystem::path(home) / ".local" / "share" / "dlstudio-cpp";
  return {};
}

std::string default_corpus() {
  const auto dir = default_data_dir();
  if (dir.empty()) return "";
  const auto path = dir / "spa-eng" / "spa.txt";
  std::error_code error;
  return std::filesystem::is_regular_file(path, error) ? path.string() : "";
}

std::string no_corpus_message() {
  const auto dir = default_data_dir();
  if (dir.empty()) {
    return "no corpus: give --data FILE, or set DLS_DATA_DIR to a folder with spa-eng/spa.txt "
           "('DLS_DATA_DIR=DIR make data' downloads the Tatoeba corpus there)";
  }
  const std::string where = ", which downloads the Tatoeba corpus to " + (dir / "spa-eng" / "spa.txt").string() +
                            " where this program looks for it";
  if (env("DLS_DATA_DIR") != nullptr) {
    return "no corpus: give --data FILE, or run 'make data' with the same DLS_DATA_DIR" + where +
           " (or unset DLS_DATA_DIR to use make data's default folder)";
  }
  return "no corpus: give --data FILE, or run 'make data'" + where + " (DLS_DATA_DIR=DIR: in DIR instead)";
}

void default_image_data(std::string& dataset, std::string& data_dir, const std::string& image_folder, bool resuming) {
  if (!image_folder.empty()) dataset = "image-folder", data_dir = image_folder;
  const auto fetched_cifar = default_data_dir() / "cifar10";
  std::error_code error;
  if (dataset == "cifar10" && data_dir.empty() && !resuming && std::filesystem::exists(fetched_cifar, error))
    data_dir = fetched_cifar.string();
}

}  // namespace dls::data

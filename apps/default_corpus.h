// The corpus a training program reads when --data is not given.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <string>

namespace dls::apps {

// $DLS_DATA_DIR/spa-eng/spa.txt when it exists, else "".
inline std::string default_corpus() {
  const char* dir = std::getenv("DLS_DATA_DIR");
  if (dir == nullptr) return "";
  const auto path = std::filesystem::path(dir) / "spa-eng" / "spa.txt";
  return std::filesystem::exists(path) ? path.string() : "";
}

}  // namespace dls::apps

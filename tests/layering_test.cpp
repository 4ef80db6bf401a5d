// The layers of the code only include those below them (README, "Layout of the code"):
// util < data < layers < models < checkpoint < eval < train < apps. Every quoted include of
// a layer's header -- "dls/<layer>/..." anywhere, "<layer>/..." (a private header of src/)
// -- in include/, src/, apps/ and bench/ is checked against the layer of the file holding it.
// apps/ and bench/ are programs, the top layer; tests/ may include anything.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include "support/test_paths.h"

namespace dls {
namespace {

namespace fs = std::filesystem;

const std::vector<std::string> kLayerOrder = {"util",       "data", "layers", "models",
                                              "checkpoint", "eval", "train",  "apps"};

// Position in kLayerOrder; -1 for a name that is no layer.
int layer_rank(const std::string& layer) {
  const auto it = std::find(kLayerOrder.begin(), kLayerOrder.end(), layer);
  return it == kLayerOrder.end() ? -1 : static_cast<int>(it - kLayerOrder.begin());
}

// include/dls/<layer>/..., src/<layer>/...; apps/... and bench/... are "apps". Empty for a
// file outside the layers' folders (src/pch.h).
std::string layer_of_file(const fs::path& relative) {
  std::vector<std::string> parts;
  for (const auto& part : relative) parts.push_back(part.string());
  if (parts[0] == "apps" || parts[0] == "bench") return "apps";
  if (parts[0] == "include" && parts.size() > 3) return parts[2];
  if (parts[0] == "src" && parts.size() > 2) return parts[1];
  return "";
}

struct IncludeScan {
  std::size_t files = 0;
  std::vector<std::string> problems;  // "<file>:<line>: ..."
};

IncludeScan scan_layer_includes(const fs::path& root) {
  static const std::regex include_line(R"(^\s*#\s*include\s*"(dls/)?([A-Za-z0-9_]+)/)");
  IncludeScan scan;
  for (const char* top : {"include", "src", "apps", "bench"}) {
    for (const auto& entry : fs::recursive_directory_iterator(root / top)) {
      const auto extension = entry.path().extension().string();
      if (!entry.is_regular_file() || (extension != ".h" && extension != ".cpp")) continue;
      const fs::path relative = fs::relative(entry.path(), root);
      const std::string own = layer_of_file(relative);
      if (own.empty()) continue;
      ++scan.files;
      if (layer_rank(own) < 0) {
        scan.problems.push_back(relative.string() + ": in '" + own + "', which is no layer of the order");
        continue;
      }
      std::ifstream in(entry.path());
      std::string line;
      for (int number = 1; std::getline(in, line); ++number) {
        std::smatch m;
        if (!std::regex_search(line, m, include_line)) continue;
        const bool public_header = m[1].matched;
        const std::string included = m[2].str();
        const int rank = layer_rank(included);
        const std::string where = relative.string() + ":" + std::to_string(number) + ": ";
        if (rank < 0) {
          // "dls/<name>/" names a layer; other quoted paths (none today) are left alone.
          if (public_header) scan.problems.push_back(where + "includes unknown layer '" + included + "'");
        } else if (rank > layer_rank(own)) {
          scan.problems.push_back(where + "'" + own + "' includes '" + included + "', a layer above it");
        }
      }
    }
  }
  return scan;
}

TEST(Layering, NoLayerIncludesOneAboveIt) {
  const auto scan = scan_layer_includes(testing::source_dir());
  EXPECT_GT(scan.files, 100u);  // the scan found the sources
  std::string problems;
  for (const auto& p : scan.problems) problems += p + "\n";
  EXPECT_TRUE(scan.problems.empty()) << "upward includes (" << scan.problems.size() << "):\n" << problems;
}

}  // namespace
}  // namespace dls

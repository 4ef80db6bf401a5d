// The layers of the code only include those below them (docs/architecture.md):
// util < data < layers < models < settings < checkpoint < dlstudio < eval < train < cli < apps, and inside
// train/ its rooms: optim, parallel < the loop and run bookkeeping (train/ itself, with its
// run/ folder: a run's start, directory and identity) < tasks;
// serve (translate_server) and report (checkpoint_eval's jobs) stand on eval beside train: none of
// them includes another; cli (the programs' shared command line) stands on all three. Every quoted include of
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
#include "util/temp_files.h"

namespace dls {
namespace {

namespace fs = std::filesystem;

const std::vector<std::string> kLayerOrder = {
    "util",   "data",        "layers",         "models", "settings",    "checkpoint", "dlstudio", "eval",
    "report", "train/optim", "train/parallel", "train",  "train/tasks", "serve",      "cli",      "apps"};
// train/optim and train/parallel are one floor; report (checkpoint_eval's jobs), all of train
// and serve stand side by side on eval: none of them includes another.
bool same_floor(const std::string& a, const std::string& b) {
  const auto in_train = [](const std::string& layer) { return layer.rfind("train", 0) == 0; };
  const auto beside = [&](const std::string& x, const std::string& y) {
    return (x == "serve" || x == "report") && (in_train(y) || y == "serve" || y == "report") && x != y;
  };
  return (a == "train/optim" && b == "train/parallel") || (a == "train/parallel" && b == "train/optim") ||
         beside(a, b) || beside(b, a);
}

// Position in kLayerOrder; -1 for a name that is no layer.
int layer_rank(const std::string& layer) {
  const auto it = std::find(kLayerOrder.begin(), kLayerOrder.end(), layer);
  return it == kLayerOrder.end() ? -1 : static_cast<int>(it - kLayerOrder.begin());
}

// The layer of a folder inside train/: its own room, but run/ is train itself (the run's
// start, directory and identity, which the loop and the run's start share both ways).
std::string train_room(const std::string& folder) { return folder == "run" ? "train" : "train/" + folder; }

// include/dls/<layer>/..., src/<layer>/...; apps/... and bench/... are "apps". Empty for a
// file outside the layers' folders (src/pch.h).
std::string layer_of_file(const fs::path& relative) {
  std::vector<std::string> parts;
  for (const auto& part : relative) parts.push_back(part.string());
  if (parts[0] == "apps" || parts[0] == "bench") return "apps";
  // A room of train/ (a folder inside it) counts as its own layer.
  if (parts[0] == "include" && parts.size() > 4 && parts[2] == "train") return train_room(parts[3]);
  if (parts[0] == "src" && parts.size() > 3 && parts[1] == "train") return train_room(parts[2]);
  if (parts[0] == "include" && parts.size() > 3) return parts[2];
  if (parts[0] == "src" && parts.size() > 2) return parts[1];
  return "";
}

struct IncludeScan {
  std::size_t files = 0;
  std::vector<std::string> problems;  // "<file>:<line>: ..."
};

IncludeScan scan_layer_includes(const fs::path& root) {
  // Group 2: the layer; group 3: the room of train/ (a folder inside it), if any.
  static const std::regex include_line(R"(^\s*#\s*include\s*"(dls/)?([A-Za-z0-9_]+)/(?:([A-Za-z0-9_]+)/)?)");
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
        std::string included = m[2].str();
        if (included == "train" && m[3].matched) included = train_room(m[3].str());
        const int rank = layer_rank(included);
        const std::string where = relative.string() + ":" + std::to_string(number) + ": ";
        if (rank < 0) {
          // "dls/<name>/" names a layer; other quoted paths (none today) are left alone.
          if (public_header) scan.problems.push_back(where + "includes unknown layer '" + included + "'");
        } else if (rank > layer_rank(own)) {
          scan.problems.push_back(where + "'" + own + "' includes '" + included + "', a layer above it");
        } else if (same_floor(own, included)) {
          scan.problems.push_back(where + "'" + own + "' includes '" + included + "', a room beside it");
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

// The rule itself: a tree whose rooms break it in each way is refused, line by line.
TEST(Layering, CatchesAnIncludeUpwardOrAcrossTrainsRooms) {
  const fs::path root = test::fresh_temp_dir("layering_rooms");
  const auto write = [&root](const std::string& file, const std::string& text) {
    fs::create_directories((root / file).parent_path());
    std::ofstream(root / file) << text;
  };
  for (const char* top : {"apps", "bench"}) fs::create_directories(root / top);
  write("include/dls/train/optim/a.h", "#include \"dls/train/training_loop.h\"\n");  // room below the loop
  write("include/dls/train/parallel/b.h", "#include \"dls/train/optim/a.h\"\n");     // rooms side by side
  write("src/train/training_loop.cpp", "#include \"train/tasks/c.h\"\n");            // loop below the tasks
  write("src/settings/d.cpp", "#include \"dls/checkpoint/checkpoint.h\"\n");         // settings below checkpoint
  write("src/train/tasks/e.cpp", "#include \"dls/train/optim/a.h\"\n#include \"train/x.h\"\n");              // allowed
  write("src/serve/f.cpp", "#include \"dls/eval/translator.h\"\n#include \"dls/train/run/run_start.h\"\n");  // beside
  write("src/train/g.cpp", "#include \"dls/serve/batcher.h\"\n");  // train below serve's floor
  write("src/train/tasks/h.cpp", "#include \"dls/eval/bleu.h\"\n#include \"dls/report/text_scoring.h\"\n");  // beside
  write("include/dls/serve/i.h", "#include \"dls/cli/run_flags.h\"\n");  // the library below the command line
  write("include/dls/cli/j.h", "#include \"dls/serve/i.h\"\n#include \"dls/train/stop_signals.h\"\n");  // allowed
  const auto scan = scan_layer_includes(root);
  EXPECT_EQ(scan.files, 10u);
  ASSERT_EQ(scan.problems.size(), 8u);
  std::string all;
  for (const auto& problem : scan.problems) all += problem;
  EXPECT_NE(all.find("'serve' includes 'train', a room beside it"), std::string::npos) << all;
  EXPECT_NE(all.find("'train/tasks' includes 'report', a room beside it"), std::string::npos) << all;
  EXPECT_NE(all.find("'train' includes 'serve', a layer above it"), std::string::npos) << all;
  EXPECT_NE(all.find("'train/optim' includes 'train', a layer above it"), std::string::npos) << all;
  EXPECT_NE(all.find("'train/parallel' includes 'train/optim', a room beside it"), std::string::npos) << all;
  EXPECT_NE(all.find("'train' includes 'train/tasks', a layer above it"), std::string::npos) << all;
  EXPECT_NE(all.find("'settings' includes 'checkpoint', a layer above it"), std::string::npos) << all;
  EXPECT_NE(all.find("'serve' includes 'cli', a layer above it"), std::string::npos) << all;
}

}  // namespace
}  // namespace dls

// docs/training.md's first command runs as it is written there, on the sample corpus: from a
// folder laid out as the repository is (build/ and data/ side by side), nothing added.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <set>
#include <sstream>
#include <string>

#include "dls/checkpoint/checkpoint_files.h"
#include "dls/util/file_io.h"
#include "support/test_paths.h"
#include "util/temp_files.h"

namespace dls {
namespace {

namespace fs = std::filesystem;

// The first line of the page's first code block, without a trailing "# comment".
std::string first_command(const std::string& page) {
  const auto fence = page.find("\n```\n");
  if (fence == std::string::npos) return "";
  const auto start = fence + 5;
  std::string line = page.substr(start, page.find('\n', start) - start);
  line = line.substr(0, line.find(" #"));
  return line.substr(0, line.find_last_not_of(' ') + 1);
}

TEST(TrainingDoc, TheFirstCommandRunsAsWritten) {
  const auto command = first_command(util::read_file(testing::source_dir() + "/docs/training.md"));
  ASSERT_EQ(command.rfind("build/apps/seq2seq_train --data data/sample_en_es.tsv", 0), 0u) << command;
  ASSERT_EQ(command.find('\\'), std::string::npos) << "one line: " << command;
  const auto dir = test::fresh_temp_dir("training_doc_first");
  fs::create_directory_symlink(testing::source_dir() + "/data", dir / "data");
  fs::create_directory_symlink(testing::binary_dir(), dir / "build");
  // Logs at info, as a user sees them (the test environment turns them off).
  const std::string shell = "cd '" + dir.string() + "' && DLS_LOG_LEVEL=info " + command + " >out 2>err";
  const int raw = std::system(shell.c_str());
  const auto err = util::read_file((dir / "err").string());
  ASSERT_TRUE(WIFEXITED(raw) && WEXITSTATUS(raw) == 0) << command << "\n" << err;
  EXPECT_NE(err.find("preset cpu: the default on a CPU"), std::string::npos) << err;
  EXPECT_EQ(err.find("[warning]"), std::string::npos) << err;
  // best.pt is logged when it changes, each time naming another epoch; no line repeats the
  // best score of an epoch that did not better it.
  std::set<std::string> best_epochs;
  std::istringstream lines(err);
  for (std::string line; std::getline(lines, line);) {
    const auto at = line.find("best.pt: epoch ");
    if (at == std::string::npos) continue;
    EXPECT_TRUE(best_epochs.insert(line.substr(at, line.find(',', at) - at)).second) << line;
  }
  EXPECT_FALSE(best_epochs.empty()) << err;
  EXPECT_EQ(err.find("no better"), std::string::npos) << err;
  // The run the page describes: its checkpoints and best.pt in runs/first.
  const auto run = dir / "runs" / "first";
  EXPECT_FALSE(checkpoint::find_checkpoints(run.string()).empty());
  EXPECT_TRUE(fs::exists(run / "best.pt"));
  EXPECT_TRUE(fs::exists(run / "metrics.csv"));
}

}  // namespace
}  // namespace dls

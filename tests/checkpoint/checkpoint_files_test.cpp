#include "dls/checkpoint/checkpoint_files.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "dls/util/file_io.h"
#include "util/temp_files.h"

namespace dls::checkpoint {
namespace {

TEST(CheckpointFiles, MissingOrEmptyDirectoriesAreErrors) {
  const auto dir = test::fresh_temp_dir("run_directory_empty");
  EXPECT_THROW(find_checkpoints((dir / "absent").string()), std::runtime_error);
  try {
    find_checkpoints(dir.string());
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("no checkpoint files"), std::string::npos);
    EXPECT_EQ(std::string(e.what()).find("moved"), std::string::npos);
  }
  // A run that --overwrite moved aside is pointed to (an in-place fine-tune restarted before
  // its first checkpoint looked for its weights here).
  std::filesystem::create_directories(dir.string() + ".old-1/checkpoints");
  test::write_bytes(dir.string() + ".old-1/checkpoints/checkpoint_epoch_0001.pt", "x");
  try {
    find_checkpoints(dir.string() + "/");
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("; --overwrite moved the run that was here to " + dir.string() + ".old-1"),
              std::string::npos)
        << e.what();
  }
  std::filesystem::remove_all(dir.string() + ".old-1");  // beside the temporary folder, not in it
}

// One answer to "which run is this checkpoint of" for the trainers' --resume and the reports'
// output folders. `--resume RUN/checkpoints` once made the checkpoints folder a run of its own
// (checkpoints/checkpoints/, a second metrics.csv inside).
TEST(CheckpointFiles, TheRunOfACheckpoint) {
  const auto dir = test::fresh_temp_dir("run_dir_of");
  std::filesystem::create_directories(dir / "run" / "checkpoints");
  const auto run = (dir / "run").string();
  EXPECT_EQ(run_dir_of(run), run);
  EXPECT_EQ(run_dir_of(run + "/checkpoints/checkpoint_epoch_0003.pt"), run);
  EXPECT_EQ(run_dir_of(run + "/best.pt"), run);
  EXPECT_EQ(run_dir_of(run + "/checkpoints"), run);
  EXPECT_EQ(run_dir_of(run + "/checkpoints/"), run);
  EXPECT_EQ(run_dir_of(run + "/"), run);
  EXPECT_EQ(run_dir_of("best.pt"), ".");
}

// Past epoch 9,999 the names grow a digit; the newest is found by number, not text order.
TEST(CheckpointFiles, SortByEpochNumberPastFourDigits) {
  EXPECT_EQ(checkpoint_file_name(9999), "checkpoint_epoch_9999.pt");
  EXPECT_EQ(checkpoint_file_name(10000), "checkpoint_epoch_10000.pt");
  EXPECT_EQ(checkpoint_epoch("checkpoint_epoch_10000.pt"), 10000);
  EXPECT_EQ(checkpoint_epoch("dir/checkpoint_epoch_0007.pt"), 7);
  EXPECT_EQ(checkpoint_epoch("best.pt"), -1);
  const auto dir = test::fresh_temp_dir("checkpoint_files_order");
  for (const int epoch : {10001, 9998, 10000, 9999, 2}) {
    test::write_bytes(dir / checkpoint_file_name(epoch), "x");
  }
  const auto files = find_checkpoints(dir.string());
  ASSERT_EQ(files.size(), 5u);
  std::vector<std::string> names;
  for (const auto& f : files) names.push_back(std::filesystem::path(f).filename().string());
  EXPECT_EQ(names, (std::vector<std::string>{"checkpoint_epoch_0002.pt", "checkpoint_epoch_9998.pt",
                                             "checkpoint_epoch_9999.pt", "checkpoint_epoch_10000.pt",
                                             "checkpoint_epoch_10001.pt"}));
  EXPECT_EQ(latest_checkpoint(dir.string()), (dir / "checkpoint_epoch_10001.pt").string());
}

}  // namespace
}  // namespace dls::checkpoint

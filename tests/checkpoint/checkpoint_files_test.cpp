#include "dls/checkpoint/checkpoint_files.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "dls/checkpoint/checkpoint.h"
#include "dls/checkpoint/run_state.h"
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

// A checkpoint that holds nothing but where its run stood.
void write_state(const std::filesystem::path& path, std::int64_t completed_epochs, std::int64_t step_in_epoch,
                 std::int64_t global_step) {
  RunState state;
  state.completed_epochs = completed_epochs;
  state.step_in_epoch = step_in_epoch;
  state.global_step = global_step;
  CheckpointWriter writer("test");
  describe_run_state(writer, state);
  writer.save(path.string());
}

// A run that saves every K epochs writes best.pt alone in the epochs between; stopped there,
// its newest state is best.pt's, and a resume (a torchrun restart too) continues from it
// rather than from an older numbered checkpoint, or not at all when there is none.
TEST(CheckpointFiles, WhereARunStoppedIsItsBestPtWhenNoNumberedCheckpointIsAsNew) {
  namespace fs = std::filesystem;
  const auto run = test::fresh_temp_dir("latest_with_best");
  fs::create_directories(run / "checkpoints");
  const auto numbered = [&](int epoch) { return (run / "checkpoints" / checkpoint_file_name(epoch)).string(); };
  const auto best = (run / "best.pt").string();

  write_state(best, 1, 0, 4);  // epoch 1 bettered the score; no checkpoint until epoch 2
  EXPECT_EQ(latest_checkpoint(run.string()), best) << "the run's only checkpoint";
  EXPECT_EQ(latest_checkpoint((run / "checkpoints").string()), best);

  write_state(numbered(2), 2, 0, 8);
  EXPECT_EQ(latest_checkpoint(run.string()), numbered(2)) << "best.pt is older";
  write_state(best, 3, 0, 12);
  EXPECT_EQ(latest_checkpoint(run.string()), best) << "epoch 3 bettered it, and the run stopped in epoch 4";

  // One epoch's number for both: a checkpoint saved mid-epoch 4 (--max-iters), then best.pt at
  // the end of that epoch in a resume of it. The steps decide.
  write_state(numbered(4), 3, 2, 14);
  write_state(best, 4, 0, 16);
  EXPECT_EQ(latest_checkpoint(run.string()), best);
  write_state(best, 3, 0, 12);
  EXPECT_EQ(latest_checkpoint(run.string()), numbered(4));

  // best.pt linked to a numbered checkpoint is never newer than the newest; a damaged one is
  // passed over for the numbered one (whose own problems a resume then reports).
  fs::remove(best);
  fs::create_hard_link(numbered(2), best);
  EXPECT_EQ(latest_checkpoint(run.string()), numbered(4));
  fs::remove(best);
  test::write_bytes(best, "not a checkpoint");
  EXPECT_EQ(latest_checkpoint(run.string()), numbered(4));
  EXPECT_EQ(latest_checkpoint(best), best) << "a file named is itself";

  // A folder with neither stays an error.
  fs::remove_all(run / "checkpoints");
  fs::remove(best);
  EXPECT_THROW(latest_checkpoint(run.string()), std::runtime_error);
}

}  // namespace
}  // namespace dls::checkpoint

#include "dls/train/run/run_directory.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <stdexcept>
#include <string>

#include <unistd.h>

#include "dls/checkpoint/checkpoint_files.h"
#include "util/temp_files.h"

namespace dls::train {
namespace {

namespace fs = std::filesystem;

using checkpoint::find_checkpoints;
using checkpoint::latest_checkpoint;

TEST(RunDirectory, PrunesOnlyTheCheckpointsItRecorded) {
  const auto dir = test::fresh_temp_dir("run_directory");
  RunDirectory run(dir.string());
  // A user's file that looks like a checkpoint, never recorded: must survive.
  test::write_bytes(run.checkpoint_path(1), "user's own file");
  for (int epoch : {2, 3, 4, 5}) {
    test::write_bytes(run.checkpoint_path(epoch), "ckpt");
    run.record_checkpoint(run.checkpoint_path(epoch));
  }
  test::write_bytes(run.file("notes.txt"), "keep");
  run.prune_checkpoints(2);
  EXPECT_TRUE(fs::exists(run.checkpoint_path(1)));
  EXPECT_FALSE(fs::exists(run.checkpoint_path(2)));
  EXPECT_FALSE(fs::exists(run.checkpoint_path(3)));
  EXPECT_TRUE(fs::exists(run.checkpoint_path(4)));
  EXPECT_TRUE(fs::exists(run.checkpoint_path(5)));
  EXPECT_TRUE(fs::exists(run.file("notes.txt")));
  const auto found = find_checkpoints(dir.string());
  ASSERT_EQ(found.size(), 3u);
  EXPECT_EQ(latest_checkpoint(dir.string()), run.checkpoint_path(5));
  EXPECT_EQ(find_checkpoints(run.checkpoint_path(4)).size(), 1u);
}

}  // namespace
// --keep-last prunes by epoch number: past epoch 9,999 it keeps checkpoint_epoch_10000.pt and
// deletes checkpoint_epoch_9998.pt, not the other way round.
TEST(RunDirectory, KeepLastPrunesByEpochNumber) {
  const auto dir = test::fresh_temp_dir("run_directory_numbers");
  RunDirectory run(dir.string());
  for (int epoch : {9998, 9999, 10000, 10001}) {
    test::write_bytes(run.checkpoint_path(epoch), "ckpt");
    run.record_checkpoint(run.checkpoint_path(epoch));
  }
  run.prune_checkpoints(2);
  EXPECT_FALSE(fs::exists(run.checkpoint_path(9998)));
  EXPECT_FALSE(fs::exists(run.checkpoint_path(9999)));
  EXPECT_TRUE(fs::exists(run.checkpoint_path(10000)));
  EXPECT_TRUE(fs::exists(run.checkpoint_path(10001)));
  EXPECT_EQ(latest_checkpoint(dir.string()), run.checkpoint_path(10001));
}

// --keep-last K keeps the newest K and the one best.pt names: K files when that one is among
// the newest (it kept one more old one), K + 1 when it is older.
TEST(RunDirectory, KeepLastKeepsTheBestsSourceBesideTheNewest) {
  const auto dir = test::fresh_temp_dir("run_directory_spare");
  RunDirectory run(dir.string());
  for (int epoch = 1; epoch <= 6; ++epoch) {
    test::write_bytes(run.checkpoint_path(epoch), "ckpt");
    run.record_checkpoint(run.checkpoint_path(epoch));
  }
  run.prune_checkpoints(3, checkpoint::checkpoint_file_name(5));
  EXPECT_EQ(find_checkpoints(dir.string()),
            (std::vector<std::string>{run.checkpoint_path(4), run.checkpoint_path(5), run.checkpoint_path(6)}));
  test::write_bytes(run.checkpoint_path(7), "ckpt");
  run.record_checkpoint(run.checkpoint_path(7));
  run.prune_checkpoints(2, checkpoint::checkpoint_file_name(4));
  EXPECT_EQ(find_checkpoints(dir.string()),
            (std::vector<std::string>{run.checkpoint_path(4), run.checkpoint_path(6), run.checkpoint_path(7)}));
}

// One training process at a time: a second lock on the same directory (another open file,
// as another process would have) is refused naming the holder; released, it can be taken.
TEST(RunDirectoryLock, OneHolderAtATime) {
  const auto dir = test::fresh_temp_dir("run_lock") / "run";
  {
    const RunDirectoryLock first(dir.string());
    EXPECT_TRUE(fs::is_directory(dir));
    try {
      const RunDirectoryLock second(dir.string());
      FAIL() << "a second lock was granted";
    } catch (const std::runtime_error& error) {
      const std::string message = error.what();
      EXPECT_NE(message.find("another training process (pid " + std::to_string(::getpid()) + ")"), std::string::npos)
          << message;
      EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    }
  }
  EXPECT_NO_THROW(RunDirectoryLock again(dir.string())) << "released with its holder";
  EXPECT_TRUE(earlier_run(dir.string()).empty()) << "the lock file alone is no earlier run";
}

// A run stopped before its first checkpoint has nothing --resume could continue: the refusal
// offers --overwrite, not --resume; with a checkpoint it offers --resume.
TEST(RunDirectory, TheRefusalOffersResumeOnlyWhenThereIsACheckpoint) {
  const auto dir = test::fresh_temp_dir("run_claim") / "run";
  fs::create_directories(dir / "checkpoints");
  test::write_bytes(dir / "metrics.csv", "epoch,step\n");
  const auto refusal = [&] {
    try {
      claim_run_directory(dir.string(), false);
    } catch (const std::runtime_error& error) {
      return std::string(error.what());
    }
    return std::string("(no refusal)");
  };
  const auto early = refusal();
  EXPECT_NE(early.find("stopped before its first checkpoint (metrics.csv): give --overwrite"), std::string::npos)
      << early;
  EXPECT_EQ(early.find("--resume"), std::string::npos) << early;
  test::write_bytes(dir / "checkpoints" / "checkpoint_epoch_0001.pt", "x");
  const auto later = refusal();
  EXPECT_NE(later.find("(metrics.csv and 1 checkpoint): continue it with --resume " + dir.string()), std::string::npos)
      << later;
  const auto aside = claim_run_directory(dir.string(), true);
  EXPECT_TRUE(fs::exists(fs::path(aside) / "metrics.csv"));
  EXPECT_EQ(claim_run_directory(dir.string(), false), "");
}

}  // namespace dls::train

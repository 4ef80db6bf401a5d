// Which run a torchrun restart resumes: rank 0 only its own job's (RUN/.torchrun_job); the other
// ranks, whose launcher on another machine is another process, whatever rank 0 resumes.
#include "dls/train/run/run_start.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "dls/checkpoint/checkpoint.h"
#include "dls/checkpoint/checkpoint_files.h"
#include "dls/checkpoint/run_state.h"
#include "dls/util/file_io.h"
#include "support/error_of.h"
#include "util/temp_files.h"

namespace dls::train {
namespace {

namespace fs = std::filesystem;

// TORCHELASTIC_RESTART_COUNT set for the test's scope.
struct RestartCount {
  explicit RestartCount(const char* count) { ::setenv("TORCHELASTIC_RESTART_COUNT", count, 1); }
  ~RestartCount() { ::unsetenv("TORCHELASTIC_RESTART_COUNT"); }
};

TEST(RestartResume, RankZeroResumesOnlyItsJobsRunAndTheOthersFollow) {
  const auto run = test::fresh_temp_dir("restart_resume");
  fs::create_directories(run / "checkpoints");
  test::write_bytes(run / "checkpoints" / checkpoint::checkpoint_file_name(1), "a checkpoint");
  EXPECT_EQ(resume_after_restart(run.string(), true), "") << "not under torchrun";
  const RestartCount restarted("1");
  EXPECT_EQ(resume_after_restart(run.string(), true), "") << "another job's run (no .torchrun_job)";
  EXPECT_EQ(resume_after_restart(run.string(), false), run.string()) << "a rank on another machine follows rank 0";
  test::write_bytes(run / kTorchrunJobFile, torchrun_job() + "\n");
  EXPECT_TRUE(written_by_this_job(run.string()));
  EXPECT_EQ(resume_after_restart(run.string(), true), run.string());
  test::write_bytes(run / kTorchrunJobFile, "otherhost 1 2\n");
  EXPECT_EQ(resume_after_restart(run.string(), true), "");
}

// Checkpoints of epochs 1..n in run/checkpoints, holding their run state alone.
void write_checkpoints(const fs::path& run, int n) {
  fs::create_directories(run / "checkpoints");
  for (int epoch = 1; epoch <= n; ++epoch) {
    checkpoint::RunState state;
    state.completed_epochs = epoch;
    state.global_step = 10 * epoch;
    checkpoint::CheckpointWriter writer("seq2seq");
    checkpoint::describe_run_state(writer, state);
    writer.save((run / "checkpoints" / checkpoint::checkpoint_file_name(epoch)).string());
  }
}

// A resume from an older checkpoint into its own run would write over the newer ones:
// refused, by a dry run too. A torchrun restart of such a resume (its first attempt wrote
// them) continues from the newest of this job's.
TEST(ResumeStart, AnOlderCheckpointIsRefusedAndARestartContinuesTheNewest) {
  const auto run_dir = test::fresh_temp_dir("resume_start");
  write_checkpoints(run_dir, 3);
  settings::RunSettings run;
  run.resume = (run_dir / "checkpoints" / checkpoint::checkpoint_file_name(1)).string();
  for (const bool dry : {false, true}) {
    run.dry_run = dry;
    try {
      start_run(run, "unused", "seq2seq");
      ADD_FAILURE() << "no error (dry run " << dry << ")";
    } catch (const std::runtime_error& e) {
      EXPECT_NE(
          std::string(e.what()).find("has 2 newer checkpoints (checkpoint_epoch_0002.pt .. checkpoint_epoch_0003.pt)"),
          std::string::npos)
          << e.what();
    }
  }
  run.dry_run = false;
  const RestartCount restarted("1");
  test::write_bytes(run_dir / kTorchrunJobFile, torchrun_job() + "\n");
  const auto started = start_run(run, "unused", "seq2seq");
  EXPECT_EQ(started.run.resume, run_dir.string());
  EXPECT_EQ(started.resume->path(), (run_dir / "checkpoints" / checkpoint::checkpoint_file_name(3)).string());
}

// best.pt saved alone after the numbered checkpoints (--checkpoint-every 2, stopped in epoch
// 4) is where the run stopped: --resume RUN continues from it, and a resume from an older
// numbered checkpoint, whose next better score would replace it, is refused naming it.
TEST(ResumeStart, ABestPtNewerThanTheCheckpointsIsWhereTheRunStopped) {
  const auto run_dir = test::fresh_temp_dir("resume_start_best");
  write_checkpoints(run_dir, 2);
  checkpoint::RunState state;
  state.completed_epochs = 3;
  state.global_step = 30;
  checkpoint::CheckpointWriter writer("seq2seq");
  checkpoint::describe_run_state(writer, state);
  writer.save((run_dir / "best.pt").string());
  settings::RunSettings run;
  run.resume = (run_dir / "checkpoints" / checkpoint::checkpoint_file_name(2)).string();
  EXPECT_NE(test::error_of([&] { start_run(run, "unused", "seq2seq"); }, "(no error)")
                .find("has 1 newer checkpoint (best.pt) that continuing from epoch 2 would write over"),
            std::string::npos);
  run.resume = (run_dir / "checkpoints" / checkpoint::checkpoint_file_name(1)).string();
  EXPECT_NE(test::error_of([&] { start_run(run, "unused", "seq2seq"); }, "(no error)")
                .find("has 2 newer checkpoints (checkpoint_epoch_0002.pt .. best.pt)"),
            std::string::npos);
  run.resume = run_dir.string();
  const auto started = start_run(run, "unused", "seq2seq");
  EXPECT_EQ(started.resume->path(), (run_dir / "best.pt").string());
}

// When the newest of them is damaged, the refusal says so, instead of pointing at it as the
// way on.
TEST(ResumeStart, AnOlderCheckpointsRefusalSaysTheNewestIsUnreadable) {
  const auto run_dir = test::fresh_temp_dir("resume_start_damaged");
  write_checkpoints(run_dir, 3);
  const auto newest = run_dir / "checkpoints" / checkpoint::checkpoint_file_name(3);
  test::write_bytes(newest, util::read_file(newest.string()).substr(0, 100));
  settings::RunSettings run;
  run.resume = (run_dir / "checkpoints" / checkpoint::checkpoint_file_name(1)).string();
  const auto error = test::error_of([&] { start_run(run, "unused", "seq2seq"); }, "(no error)");
  EXPECT_NE(error.find("or here once the newer ones are moved aside (the newest is unreadable: " + newest.string()),
            std::string::npos)
      << error;
  EXPECT_EQ(error.find("--resume " + run_dir.string() + ")"), std::string::npos) << error;
}

// A dry run creates and locks nothing, but what would stop a start stops it too.
TEST(DryRunStart, RefusesARunDirectoryThatCannotBeOneAndCreatesNothing) {
  const auto dir = test::fresh_temp_dir("dry_run_start");
  settings::RunSettings run;
  run.dry_run = true;
  test::write_bytes(dir / "afile", "x");
  run.run_dir = (dir / "afile").string();
  EXPECT_THROW(
      {
        try {
          start_run(run, "unused", "seq2seq");
        } catch (const std::runtime_error& e) {
          EXPECT_NE(std::string(e.what()).find("afile: the run directory is a file"), std::string::npos) << e.what();
          throw;
        }
      },
      std::runtime_error);
  run.run_dir = (dir / "afile" / "run").string();
  EXPECT_THROW(start_run(run, "unused", "seq2seq"), std::runtime_error) << "inside a file";
  run.run_dir = (dir / "new" / "run").string();
  EXPECT_NO_THROW(start_run(run, "unused", "seq2seq"));
  EXPECT_FALSE(fs::exists(dir / "new")) << "a dry run creates nothing";
  fs::create_directories(dir / "old" / "checkpoints");
  test::write_bytes(dir / "old" / "metrics.csv", "epoch\n");
  run.run_dir = (dir / "old").string();
  EXPECT_NO_THROW(start_run(run, "unused", "seq2seq")) << "an earlier run is a warning: --overwrite decides";
  EXPECT_TRUE(fs::exists(dir / "old" / "metrics.csv"));
  EXPECT_FALSE(fs::exists(dir / "old" / ".lock"));
}

}  // namespace
}  // namespace dls::train

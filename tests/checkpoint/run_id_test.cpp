// Which checkpoint of a run directory a job reads when another run's checkpoint was copied in:
// the run's own (RUN_ID), whatever the copy's epoch; a file named is read as named.
#include "dls/checkpoint/run_id.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>

#include "dls/checkpoint/checkpoint_files.h"
#include "dls/checkpoint/run_state.h"
#include "util/temp_files.h"

namespace dls::checkpoint {
namespace {

namespace fs = std::filesystem;

// A checkpoint of kind `kind` carrying run id `id` ("" : none, as before run ids).
std::string write_checkpoint(const fs::path& path, const std::string& id, const std::string& kind = "seq2seq") {
  CheckpointWriter writer(kind);
  if (!id.empty()) writer.add_text(kRunIdText, id);
  writer.save(path.string());
  return path.string();
}

// RUN_ID aaaa; its epochs 1 and 2, and epoch 9 of run bbbb copied in.
struct RunWithACopy {
  fs::path run = test::fresh_temp_dir("run_id_choice");
  std::string own1, own2, foreign;
  RunWithACopy() {
    fs::create_directories(run / "checkpoints");
    test::write_bytes(run / kRunIdFile, "aaaa\n");
    own1 = write_checkpoint(run / "checkpoints" / checkpoint_file_name(1), "aaaa");
    own2 = write_checkpoint(run / "checkpoints" / checkpoint_file_name(2), "aaaa");
    foreign = write_checkpoint(run / "checkpoints" / checkpoint_file_name(9), "bbbb");
  }
};

TEST(RunCheckpoint, TheRunsOwnNewestOverANewerCopyFromAnotherRun) {
  const RunWithACopy dir;
  EXPECT_EQ(open_run_checkpoint(dir.run.string()).path(), dir.own2);
  EXPECT_EQ(open_run_checkpoint((dir.run / "checkpoints").string()).path(), dir.own2);
  EXPECT_EQ(open_run_checkpoint(dir.run.string(), "", RunCheckpoint::kNewest).path(), dir.own2);
  // Named, a file is read as it is.
  EXPECT_EQ(open_run_checkpoint(dir.foreign).path(), dir.foreign);
  // The rule of the reports and averages is the same.
  const RunMembership run(dir.run.string());
  EXPECT_EQ(run.left_out(CheckpointReader(dir.own1)), "");
  EXPECT_EQ(run.left_out(CheckpointReader(dir.own2)), "");
  EXPECT_EQ(
      run.left_out(CheckpointReader(dir.foreign)).rfind("skipped: " + dir.foreign + ": a checkpoint of run bbbb", 0),
      0u);
  EXPECT_EQ(RunMembership(dir.foreign).left_out(CheckpointReader(dir.foreign)), "") << "a file named keeps itself";
}

// The run's folder however it is named: "checkpoints/." and a link to checkpoints/ read the
// run's RUN_ID (they looked for it in the wrong folder and took the copy); a copy of another
// kind leaves the run's kind its own (a copied-in lm checkpoint made a seq2seq run an lm one).
TEST(RunCheckpoint, ThePathFormsOfARunAndItsKind) {
  const RunWithACopy dir;
  EXPECT_EQ(open_run_checkpoint((dir.run / "checkpoints" / ".").string()).path(),
            (dir.run / "checkpoints" / "." / checkpoint_file_name(2)).string());
  const auto link = dir.run.parent_path() / "run_id_choice_link";
  fs::remove(link);
  fs::create_directory_symlink(dir.run / "checkpoints", link);
  EXPECT_EQ(fs::path(open_run_checkpoint(link.string()).path()).filename(), checkpoint_file_name(2));
  write_checkpoint(dir.run / "checkpoints" / checkpoint_file_name(12), "bbbb", "lm");
  EXPECT_EQ(run_checkpoints_kind(dir.run.string(), find_checkpoints(dir.run.string())), "seq2seq");
  EXPECT_EQ(run_checkpoints_kind(link.string(), find_checkpoints(link.string())), "seq2seq");
  fs::remove(link);
}

TEST(RunCheckpoint, BestPtWhenItIsTheRunsOwn) {
  const RunWithACopy dir;
  const auto best = write_checkpoint(dir.run / "best.pt", "aaaa");
  EXPECT_EQ(open_run_checkpoint(dir.run.string()).path(), best);
  EXPECT_EQ(open_run_checkpoint(dir.run.string(), "", RunCheckpoint::kNewest).path(), dir.own2);
  write_checkpoint(dir.run / "best.pt", "bbbb");
  EXPECT_EQ(open_run_checkpoint(dir.run.string()).path(), dir.own2);

  // A run stopped before its first numbered checkpoint: best.pt is where it stopped, for
  // --init-from as for --resume.
  const auto only = test::fresh_temp_dir("run_id_only_best");
  fs::create_directories(only / "checkpoints");
  test::write_bytes(only / kRunIdFile, "aaaa\n");
  const auto only_best = write_checkpoint(only / "best.pt", "aaaa");
  EXPECT_EQ(open_run_checkpoint(only.string(), "", RunCheckpoint::kNewest).path(), only_best);
}

// A checkpoint of run `id` that has done `epochs` epochs of 10 steps.
std::string write_state(const fs::path& path, const std::string& id, std::int64_t epochs) {
  RunState state;
  state.completed_epochs = epochs;
  state.global_step = 10 * epochs;
  CheckpointWriter writer("seq2seq");
  describe_run_state(writer, state);
  writer.add_text(kRunIdText, id);
  writer.save(path.string());
  return path.string();
}

// Where the run stopped (--init-from) is judged among the run's own checkpoints: its best.pt
// of epoch 3 over its own epoch 1, though another run's epoch 9 was copied in.
TEST(RunCheckpoint, WhereTheRunStoppedIsJudgedAmongItsOwnCheckpoints) {
  const auto run = test::fresh_temp_dir("run_id_stopped");
  fs::create_directories(run / "checkpoints");
  test::write_bytes(run / kRunIdFile, "aaaa\n");
  const auto own = write_state(run / "checkpoints" / checkpoint_file_name(1), "aaaa", 1);
  write_state(run / "checkpoints" / checkpoint_file_name(9), "bbbb", 9);
  const auto best = write_state(run / "best.pt", "aaaa", 3);
  EXPECT_EQ(open_run_checkpoint(run.string(), "", RunCheckpoint::kNewest).path(), best);
  write_state(run / "best.pt", "aaaa", 0);
  EXPECT_EQ(open_run_checkpoint(run.string(), "", RunCheckpoint::kNewest).path(), own);
}

TEST(RunCheckpoint, WithoutRunIdsTheNewestIsRead) {
  const RunWithACopy dir;
  fs::remove(dir.run / kRunIdFile);  // a run from before run ids
  EXPECT_EQ(open_run_checkpoint(dir.run.string()).path(), dir.foreign);
  // A checkpoint without an id, in a run with one, is taken for the run's (written before ids).
  test::write_bytes(dir.run / kRunIdFile, "aaaa\n");
  const auto old = write_checkpoint(dir.run / "checkpoints" / checkpoint_file_name(10), "");
  EXPECT_EQ(open_run_checkpoint(dir.run.string()).path(), old);
}

TEST(RunCheckpoint, ARunWithNoCheckpointOfItsOwnIsAnErrorNamingIt) {
  const auto run = test::fresh_temp_dir("run_id_none_own");
  fs::create_directories(run / "checkpoints");
  test::write_bytes(run / kRunIdFile, "aaaa\n");
  write_checkpoint(run / "checkpoints" / checkpoint_file_name(3), "bbbb");
  try {
    open_run_checkpoint(run.string());
    FAIL() << "opened a checkpoint of another run";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(run.string() + ": no checkpoint of this run (RUN_ID aaaa)"), std::string::npos)
        << e.what();
  }
  write_checkpoint(run / "checkpoints" / checkpoint_file_name(1), "aaaa", "vit");
  EXPECT_THROW(open_run_checkpoint(run.string(), "seq2seq"), CheckpointError);
  EXPECT_EQ(open_run_checkpoint(run.string(), "vit").kind(), "vit");
}

}  // namespace
}  // namespace dls::checkpoint

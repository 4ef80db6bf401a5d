#include "dls/train/run/run_identity.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <stdexcept>
#include <string>

#include "dls/checkpoint/checkpoint.h"
#include "dls/train/run/run_directory.h"
#include "dls/util/file_io.h"
#include "util/temp_files.h"

namespace dls::train {
namespace {

namespace fs = std::filesystem;

// A checkpoint carrying `run_id` ("": none, as before run ids) at `path`.
std::string checkpoint_of(const fs::path& path, const std::string& run_id) {
  checkpoint::CheckpointWriter writer("toy");
  writer.add_settings({});
  if (!run_id.empty()) writer.add_text(kRunIdText, run_id);
  writer.save(path.string());
  return path.string();
}

TEST(RunIdentity, AFreshRunWritesItsIdAndResumesOnlyItsOwnCheckpoints) {
  const auto dir = test::fresh_temp_dir("run_identity");
  RunDirectory run((dir / "a").string());
  const std::string id = start_run_identity(run, nullptr);
  EXPECT_EQ(id.size(), 16u);
  EXPECT_EQ(read_run_id(run.path()), id);
  EXPECT_NE(new_run_id(), id);

  const checkpoint::CheckpointReader own(checkpoint_of(run.checkpoint_path(1), id));
  EXPECT_EQ(start_run_identity(run, &own), id);

  // Another run's checkpoint, copied into this run's folder or resumed from elsewhere.
  const checkpoint::CheckpointReader other(checkpoint_of(run.checkpoint_path(2), "0123456789abcdef"));
  try {
    start_run_identity(run, &other);
    FAIL() << "another run's checkpoint was accepted";
  } catch (const std::runtime_error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("belongs to run 0123456789abcdef, but " + run.path() + " holds run " + id),
              std::string::npos)
        << message;
  }
  // A checkpoint from before run ids: accepted from the run's own folder only.
  const checkpoint::CheckpointReader old_here(checkpoint_of(run.checkpoint_path(3), ""));
  EXPECT_EQ(start_run_identity(run, &old_here), id);
  const checkpoint::CheckpointReader old_elsewhere(checkpoint_of(dir / "old.pt", ""));
  EXPECT_THROW(start_run_identity(run, &old_elsewhere), std::runtime_error);
}

TEST(RunIdentity, AResumeIntoANewDirectoryContinuesTheCheckpointsRun) {
  const auto dir = test::fresh_temp_dir("run_identity_branch");
  const checkpoint::CheckpointReader theirs(checkpoint_of(dir / "x.pt", "00000000000000aa"));
  RunDirectory fresh((dir / "new").string());
  EXPECT_EQ(start_run_identity(fresh, &theirs), "00000000000000aa");
  EXPECT_EQ(read_run_id(fresh.path()), "00000000000000aa");
  // An older run's directory without RUN_ID (metrics.csv): not silently mixed with it.
  RunDirectory legacy((dir / "legacy").string());
  test::write_bytes(legacy.file("metrics.csv"), "kind,epoch\n");
  EXPECT_THROW(start_run_identity(legacy, &theirs), std::runtime_error);
}

// Temporaries of processes that are gone are removed; a live writer's are not.
TEST(RunIdentity, StaleTemporariesAreRemovedAtStart) {
  const auto dir = test::fresh_temp_dir("run_identity_stale");
  RunDirectory run(dir.string());
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  ::waitpid(child, nullptr, 0);  // a PID that no process has now
  const std::string dead = run.checkpoint_path(1) + ".tmp-" + std::to_string(child);
  const std::string live = run.checkpoint_path(2) + ".tmp-1";  // PID 1 is always alive
  const std::string manifest = run.file("checkpoints/MANIFEST.tmp-" + std::to_string(child));
  const std::string user = run.file("notes.tmp-abc");
  for (const auto& f : {dead, live, manifest, user}) test::write_bytes(f, "partial");
  remove_stale_run_temporaries(run);
  EXPECT_FALSE(fs::exists(dead));
  EXPECT_FALSE(fs::exists(manifest));
  EXPECT_TRUE(fs::exists(live));
  EXPECT_TRUE(fs::exists(user));
}

}  // namespace
}  // namespace dls::train

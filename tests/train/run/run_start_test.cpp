// Which run a torchrun restart resumes: rank 0 only its own job's (RUN/.torchrun_job); the other
// ranks, whose launcher on another machine is another process, whatever rank 0 resumes.
#include "dls/train/run/run_start.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "dls/checkpoint/checkpoint_files.h"
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

}  // namespace
}  // namespace dls::train

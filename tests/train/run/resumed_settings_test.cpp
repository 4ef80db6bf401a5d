#include "dls/train/run/resumed_settings.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "dls/util/file_io.h"
#include "dls/util/toml_subset.h"
#include "util/temp_files.h"

namespace dls::train {
namespace {

namespace fs = std::filesystem;

TEST(ResumedSettings, ChangesAreTheSharedSettingsWhoseValuesDiffer) {
  EXPECT_EQ(changed_settings("epochs=2\nlr=0.001\npreset=\"cpu\"\nlayers=[1, 2]\n",
                             "# a comment\nepochs=3\nlr=0.001\nlayers=[1, 3]\nnew=1\n"),
            (std::vector<std::string>{"epochs 2 -> 3", "layers [1,2] -> [1,3]"}));
  EXPECT_TRUE(changed_settings("epochs=2\n", "epochs=2\n").empty());
  EXPECT_THROW(changed_settings("epochs=\n", "epochs=2\n"), util::TomlError);
}

// A resume that changes settings writes config.resumed.toml (config.toml stays as the run
// started), the next compares with it; the run directory is the run's own; nothing is written
// for a resume that changes nothing or a run without config.toml.
TEST(ResumedSettings, AResumeThatChangesSettingsWritesThemBesideConfigToml) {
  const auto dir = test::fresh_temp_dir("resumed_settings");
  const auto run = (dir / "run").string();
  fs::create_directories(run);
  EXPECT_TRUE(record_resumed_settings(run, "epochs=3\n", "at step 10 (epoch 1)").empty()) << "no config.toml";
  const std::string started = "epochs=2\nrun-dir=\"" + run + "\"\n";
  util::write_text_atomically(run + "/config.toml", started);
  EXPECT_TRUE(record_resumed_settings(run, started, "at step 10 (epoch 1)").empty());
  EXPECT_FALSE(fs::exists(fs::path(run) / kResumedConfigFile));
  const auto changes = record_resumed_settings(run, "epochs=3\nrun-dir=\"\"\n", "at step 10 (epoch 1)");
  EXPECT_EQ(changes, std::vector<std::string>{"epochs 2 -> 3"});
  const auto resumed = util::read_file(run + "/" + kResumedConfigFile);
  EXPECT_EQ(resumed,
            "# The run's settings since it was resumed at step 10 (epoch 1); it started with config.toml.\n"
            "# changed: epochs 2 -> 3\n"
            "epochs=3\nrun-dir=\"" +
                util::absolute_path(run) + "\"\n");
  EXPECT_EQ(util::read_file(run + "/config.toml"), started);
  // The next resume is compared with what the run became.
  EXPECT_TRUE(record_resumed_settings(run, "epochs=3\nrun-dir=\"\"\n", "at step 20 (epoch 3)").empty());
  EXPECT_EQ(record_resumed_settings(run, "epochs=4\nrun-dir=\"\"\n", "at step 20 (epoch 3)"),
            std::vector<std::string>{"epochs 3 -> 4"});
  // A damaged file is no reason to stop a resume: nothing to compare with, nothing written.
  util::write_text_atomically(run + "/" + kResumedConfigFile, "epochs=[\n");
  EXPECT_TRUE(record_resumed_settings(run, "epochs=5\n", "at step 30 (epoch 4)").empty());
}

}  // namespace
}  // namespace dls::train

// The preset files of data/presets as every training program reads them: given with --config,
// a preset file makes a run that started from another preset the file's own (the same
// settings in the start-up description as --preset NAME), so a user's own preset is just
// another file; a malformed or misspelt file is refused in one line naming it.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "support/program_run.h"
#include "support/test_paths.h"
#include "support/vit_runs.h"
#include "util/temp_files.h"

namespace dls {
namespace preset_files_test {
namespace {

// The start-up description's settings lines ("Model: ...", "Training: ..."), per --help group.
std::string settings_lines(const std::string& log) {
  std::istringstream lines(log);
  std::string kept;
  for (std::string line; std::getline(lines, line);) {
    // A line of its own ("[12:00:00] info Model: ...") or of a longer message ("Model: ...").
    if (const auto info = line.find("] info "); line.rfind("[", 0) == 0 && info != std::string::npos) {
      line = line.substr(info + 7);
    }
    for (const char* group : {"Data: ", "Model: ", "Training: ", "Output: "}) {
      if (line.rfind(group, 0) == 0) kept += line + "\n";
    }
  }
  return kept;
}

test::ProgramRun dry_run(const std::string& program, const std::string& args, const std::string& name) {
  return test::run_program("apps/" + program, "--threads 1 --dry-run " + args, name, "", "DLS_LOG_LEVEL=info ");
}

TEST(PresetFiles, AFileGivenWithConfigIsThatPreset) {
  const std::string presets = testing::source_dir() + "/data/presets/";
  const std::string corpus = "--data " + testing::sample_corpus();
  const auto fashion = test::tiny_fashion_dir("preset_files_fashion");
  // program, data flags, the preset, another preset the file is read over
  const std::vector<std::tuple<std::string, std::string, std::string, std::string>> cases = {
      {"seq2seq_train", corpus + " --validation-pairs 150", "dlstudio", "cpu"},
      {"seq2seq_train", corpus + " --validation-pairs 150", "cpu", "dlstudio"},
      {"lm_train", corpus, "cpu", "tiny"},
      {"vit_train", "--data-dir " + fashion.string(), "fashion", "dlstudio"},
  };
  for (const auto& [program, data, preset, other] : cases) {
    SCOPED_TRACE(program + " " + preset);
    const auto named = dry_run(program, data + " --preset " + preset, "preset_named");
    const auto file = presets + program.substr(0, program.find('_')) + "/" + preset + ".toml";
    const auto from_file = dry_run(program, data + " --preset " + other + " --config " + file, "preset_file");
    ASSERT_EQ(named.status, 0) << named.err;
    ASSERT_EQ(from_file.status, 0) << from_file.err;
    const auto expected = settings_lines(named.err);
    EXPECT_NE(expected.find("Model: "), std::string::npos) << named.err;
    EXPECT_EQ(settings_lines(from_file.err), expected);
  }
}

TEST(PresetFiles, AMisspeltOwnPresetIsRefusedInOneLine) {
  const auto dir = test::fresh_temp_dir("preset_files_own");
  const auto mine = (dir / "mine.toml").string();
  test::write_bytes(mine, "# my preset\nepochs = 2\nbatch-sise = 32\n");
  const auto run = dry_run("lm_train", "--data " + testing::sample_corpus() + " --config " + mine, "preset_own");
  EXPECT_EQ(run.status, 1);
  EXPECT_NE(run.err.find("batch-sise"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("batch-size"), std::string::npos) << "the closest flag is suggested: " << run.err;
}

}  // namespace
}  // namespace preset_files_test
}  // namespace dls

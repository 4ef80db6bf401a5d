// compare_runs end to end: two runs (the tiny run and the same model trained the other way
// round) give a picture per metric and compare.csv in --out, the best scores and the settings
// that differ on stdout, or the files as JSON; a folder that is no run, or an --out that is a
// file, is one line, status 1.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "support/program_run.h"
#include "support/seq2seq_runs.h"
#include "util/temp_files.h"

namespace dls {
namespace compare_runs_test {
namespace {

namespace fs = std::filesystem;

TEST(CompareRunsApp, DrawsTablesAndWritesTheCsv) {
  const auto out = test::fresh_temp_dir("compare_runs_out");
  const std::string runs = test::trained_seq2seq_run().string() + " " + test::reversed_seq2seq_run().string();
  const auto run = test::run_program("apps/compare_runs", runs + " --out " + out.string(), "compare_runs");
  ASSERT_EQ(run.status, 0) << run.err;
  for (const char* file : {"compare_val_loss.png", "compare_val_bleu.png", "compare_loss.png", "compare.csv"}) {
    EXPECT_TRUE(fs::exists(out / file)) << file;
  }
  EXPECT_NE(run.out.find("Best scores"), std::string::npos) << run.out;
  EXPECT_EQ(run.out.find("progress.global_step"), std::string::npos) << "where a run stood is no setting\n" << run.out;
  EXPECT_NE(run.out.find("training.reverse"), std::string::npos) << run.out;

  const auto json = test::run_program("apps/compare_runs", runs + " --json --out " + out.string(), "compare_runs_json");
  ASSERT_EQ(json.status, 0) << json.err;
  EXPECT_NE(json.out.find("\"files\":["), std::string::npos) << json.out;
  EXPECT_EQ(test::count_lines(json.out), 1u);
}

TEST(CompareRunsApp, AFolderThatIsNoRunIsOneLine) {
  const auto empty = test::fresh_temp_dir("compare_runs_empty");
  const auto run = test::run_program(
      "apps/compare_runs",
      test::trained_seq2seq_run().string() + " " + empty.string() + " --out " + (empty / "out").string(),
      "compare_runs_empty");
  test::expect_one_line_error(run, empty.string() + ": no metrics.csv (not a training run's directory)");
  EXPECT_FALSE(fs::exists(empty / "out")) << "nothing written";
  // A folder that does not exist, and an option the program does not know, named as such (its
  // value was taken for a run: "runs: Directory does not exist: cmp").
  test::expect_one_line_error(
      test::run_program("apps/compare_runs", (empty / "absent").string(), "compare_runs_absent"),
      (empty / "absent").string() + ": not a directory");
  const auto unknown = test::run_program(
      "apps/compare_runs", test::trained_seq2seq_run().string() + " --output-dir cmp", "compare_runs_unknown");
  EXPECT_NE(unknown.status, 0);
  EXPECT_NE(unknown.err.find("--output-dir"), std::string::npos) << unknown.err;
}

// --out naming a file: one line naming the flag, nothing written.
TEST(CompareRunsApp, AnOutThatIsAFileIsOneLine) {
  const auto dir = test::fresh_temp_dir("compare_runs_out_file");
  const auto file = dir / "taken";
  { std::ofstream(file.string()) << "x"; }
  const auto run = test::run_program(
      "apps/compare_runs", test::trained_seq2seq_run().string() + " --out " + file.string(), "compare_runs_out_file");
  test::expect_one_line_error(run, "--out " + file.string() + ": a file, not a folder");
}

}  // namespace
}  // namespace compare_runs_test
}  // namespace dls

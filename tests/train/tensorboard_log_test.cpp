// --tensorboard and the "final" row of metrics.csv, through a tiny seq2seq run stopped
// mid-epoch and resumed: every row of metrics.csv is in the event file as TensorBoard reads
// it (checked by this project's reader and by an independent Python one), and the file
// follows metrics.csv when a resume drops rows.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <sstream>

#include "dls/train/tasks/seq2seq_trainer.h"
#include "dls/util/csv.h"
#include "dls/util/file_io.h"
#include "dls/util/tensorboard_events.h"
#include "support/outside_needs.h"
#include "support/seq2seq_runs.h"
#include "support/test_paths.h"
#include "util/temp_files.h"

namespace dls::train::tensorboard_log_test {
namespace {

namespace fs = std::filesystem;

std::vector<std::vector<std::string>> csv_rows(const fs::path& path) {
  const auto text = util::read_file(path.string());
  std::vector<std::vector<std::string>> rows;
  std::size_t pos = 0;
  bool complete = true;
  while (pos < text.size()) rows.push_back(util::parse_csv_record(text, &pos, &complete));
  return rows;
}

// The scalars metrics.csv's rows should give: a step row's numbers under train/, an epoch or
// final row's under epoch/, at the row's step.
std::vector<util::ScalarEvent> expected_scalars(const std::vector<std::vector<std::string>>& rows) {
  std::vector<util::ScalarEvent> scalars;
  const auto& header = rows.front();
  for (std::size_t r = 1; r < rows.size(); ++r) {
    const auto& row = rows[r];
    const auto step = std::stoll(row[2]);
    for (std::size_t i = 1; i < header.size(); ++i) {
      if (header[i] == "epoch" || header[i] == "step" || header[i] == "wall_s" || row[i].empty()) continue;
      scalars.push_back(
          {(row[0] == "step" ? "train/" : "epoch/") + header[i], step, 0, static_cast<float>(std::stod(row[i]))});
    }
  }
  return scalars;
}

void expect_same_scalars(const std::vector<util::ScalarEvent>& read, const std::vector<util::ScalarEvent>& expected) {
  ASSERT_EQ(read.size(), expected.size());
  for (std::size_t i = 0; i < read.size(); ++i) {
    EXPECT_EQ(read[i].tag, expected[i].tag) << "scalar " << i;
    EXPECT_EQ(read[i].step, expected[i].step) << "scalar " << i;
    EXPECT_FLOAT_EQ(read[i].value, expected[i].value) << read[i].tag << " at step " << read[i].step;
  }
}

const fs::path kEvents = "tensorboard/events.out.tfevents.dls";

TEST(TensorBoardLog, MetricsRowsAreScalarsAndAResumeRewritesThem) {
  const auto run = test::fresh_temp_dir("tensorboard_log");
  auto setup = test::two_short_epochs(test::tiny_seq2seq_setup(run));
  setup.run.tensorboard = true;
  setup.run.max_iters = 45;  // into the second epoch of about 37 steps
  const auto stopped = train_seq2seq(setup, {});
  ASSERT_EQ(stopped.stopped_by, "max-iters");

  // The final weights' evaluation is metrics.csv's last row, at the fractional epoch.
  auto rows = csv_rows(run / "metrics.csv");
  const auto& last = rows.back();
  ASSERT_EQ(last[0], "final");
  EXPECT_EQ(last[2], "45");
  EXPECT_GT(std::stod(last[1]), 1.0);
  EXPECT_LT(std::stod(last[1]), 2.0);
  EXPECT_NEAR(std::stod(last[6]), stopped.val_loss, 1e-4 * stopped.val_loss);
  EXPECT_NEAR(std::stod(last[7]), stopped.val_bleu, 1e-4);

  auto read = util::read_scalar_events((run / kEvents).string());
  expect_same_scalars(read, expected_scalars(rows));
  // Wall times on the run's clock: increasing, within the run.
  for (std::size_t i = 1; i < read.size(); ++i) EXPECT_GE(read[i].wall_time, read[i - 1].wall_time);
  EXPECT_LT(read.back().wall_time - read.front().wall_time, std::stod(last[8]) + 1.0);

  // Resumed to the end: the final row is dropped (the run went on), and so are its scalars.
  setup.run.resume = run.string();
  setup.run.max_iters = 0;
  const auto resumed = train_seq2seq(setup);
  ASSERT_EQ(resumed.stopped_by, "epochs");
  rows = csv_rows(run / "metrics.csv");
  for (std::size_t i = 1; i < rows.size(); ++i) EXPECT_NE(rows[i][0], "final") << "row " << i;
  EXPECT_EQ(rows.back()[0], "epoch");
  read = util::read_scalar_events((run / kEvents).string());
  expect_same_scalars(read, expected_scalars(rows));

  // An independent reader (CRC-32C and protocol buffers decoded in Python) sees the same.
  DLS_REQUIRE_OUTSIDE("/usr/bin/python3");
  const auto command = test::outside_command(
      {"/usr/bin/python3", dls::testing::source_dir() + "/tests/support/read_tfevents.py", (run / kEvents).string()});
  std::FILE* pipe = popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string text;
  char buffer[4096];
  for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) text.append(buffer, n);
  ASSERT_EQ(pclose(pipe), 0) << text;
  std::istringstream lines(text);
  std::size_t i = 0;
  for (std::string tag, step, wall, value; std::getline(lines, tag, '\t') && std::getline(lines, step, '\t') &&
                                           std::getline(lines, wall, '\t') && std::getline(lines, value);
       ++i) {
    ASSERT_LT(i, read.size());
    EXPECT_EQ(tag, read[i].tag);
    EXPECT_EQ(std::stoll(step), read[i].step);
    EXPECT_DOUBLE_EQ(std::stod(wall), read[i].wall_time);
    EXPECT_EQ(static_cast<float>(std::stod(value)), read[i].value) << tag;
  }
  EXPECT_EQ(i, read.size());
}

}  // namespace
}  // namespace dls::train::tensorboard_log_test

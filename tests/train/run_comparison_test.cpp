// train/run_comparison.h on two tiny seq2seq runs that differ in their seed and epochs: the
// runs' rows read back as metrics.csv has them, one picture per metric with a series per run
// against epoch, step and wall time, the best scores with their epochs, the settings that
// differ (from the newest checkpoints: library runs write no config.toml), every row in one
// CSV; fields that are no numbers are counted and left out; a folder that is no run is refused
// in one line.
#include "dls/train/run_comparison.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "dls/util/file_io.h"
#include "support/seq2seq_runs.h"
#include "util/temp_files.h"

namespace dls {
namespace run_comparison_test {
namespace {

namespace fs = std::filesystem;

const fs::path& second_run() {
  static const fs::path run = [] {
    auto setup = test::tiny_seq2seq_setup(test::fresh_temp_dir("run_comparison_second"));
    setup.epochs = 2;
    setup.seed = 7;
    return test::train_fixture_run(setup);
  }();
  return run;
}

std::vector<train::RunCurves> both() {
  return {train::read_run_curves(test::trained_seq2seq_run().string()), train::read_run_curves(second_run().string())};
}

TEST(RunComparison, ReadsEachRunsRows) {
  const auto runs = both();
  EXPECT_EQ(runs[0].name, test::trained_seq2seq_run().filename().string());
  int epochs = 0;
  for (const auto& row : runs[1].rows) epochs += row.kind == "epoch" ? 1 : 0;
  EXPECT_EQ(epochs, 2);
  EXPECT_NE(runs[1].settings_source.find("checkpoint_epoch_0002.pt"), std::string::npos) << runs[1].settings_source;
}

// The training loss of every step (loss_steps.csv, binned), its wall time on the line
// through the logged rows' times: more points than the step rows give.
TEST(RunComparison, TheTrainingLossIsEveryStepsWithItsWallTime) {
  const auto runs = both();
  const auto& run = runs[1];
  std::size_t step_rows = 0;
  std::vector<std::pair<double, double>> logged;  // (step, wall_s)
  for (const auto& row : run.rows) {
    step_rows += row.kind == "step" ? 1 : 0;
    if (row.kind != "step") continue;
    logged.emplace_back(row.values.at("step"), row.values.at("wall_s"));
  }
  ASSERT_GT(run.step_losses.size(), step_rows);
  double last_step = 0, last_wall = 0;
  for (const auto& row : run.step_losses) {
    const double step = row.values.at("step"), wall = row.values.at("wall_s");
    EXPECT_GT(step, last_step);
    EXPECT_GE(wall, last_wall);
    EXPECT_TRUE(std::isfinite(row.values.at("loss")));
    last_step = step;
    last_wall = wall;
  }
  // At a logged step, the interpolated wall time is that row's.
  ASSERT_GE(logged.size(), 2u);
  for (const auto& row : run.step_losses) {
    if (row.values.at("step") == logged[1].first) {
      EXPECT_NEAR(row.values.at("wall_s"), logged[1].second, 1e-9);
    }
  }
}

TEST(RunComparison, DrawsEachMetricAgainstEpochStepAndWallTime) {
  const auto runs = both();
  const auto pictures = train::comparison_pictures(runs);
  std::vector<std::string> files;
  for (const auto& picture : pictures) files.push_back(picture.file);
  for (const char* file :
       {"compare_val_loss.png", "compare_val_bleu.png", "compare_val_chrf.png", "compare_loss.png"}) {
    EXPECT_NE(std::find(files.begin(), files.end(), file), files.end()) << file;
  }
  const auto bleu =
      *std::find_if(pictures.begin(), pictures.end(), [](const auto& p) { return p.file == "compare_val_bleu.png"; });
  ASSERT_EQ(bleu.panels.size(), 3u);
  EXPECT_EQ(bleu.panels[0].x_label(), "epoch");
  EXPECT_EQ(bleu.panels[1].x_label(), "optimizer step");
  EXPECT_EQ(bleu.panels[2].x_label(), "wall time (s)");
  ASSERT_EQ(bleu.panels[0].series().size(), 2u);
  EXPECT_EQ(bleu.panels[0].series()[1].name, runs[1].name);
  EXPECT_EQ(bleu.panels[0].series()[1].x, (std::vector<double>{1, 2}));
  // The values are the run's rows.
  std::vector<double> expected;
  for (const auto& row : runs[1].rows) {
    if (row.kind == "epoch") expected.push_back(row.values.at("val_bleu"));
  }
  EXPECT_EQ(bleu.panels[0].series()[1].y, expected);
  const auto loss =
      *std::find_if(pictures.begin(), pictures.end(), [](const auto& p) { return p.file == "compare_loss.png"; });
  EXPECT_EQ(loss.panels.size(), 2u) << "the step rows' loss: by step and wall time";
  const auto canvas = bleu.render();
  EXPECT_GT(canvas.width(), 3 * 560);
}

TEST(RunComparison, TablesTheBestScoresAndTheSettingsThatDiffer) {
  const auto runs = both();
  double best = -1;
  std::int64_t best_epoch = 0;
  for (const auto& row : runs[0].rows) {
    if (row.kind == "epoch" && row.values.at("val_bleu") > best) {
      best = row.values.at("val_bleu");
      best_epoch = static_cast<std::int64_t>(row.values.at("epoch"));
    }
  }
  char cell[64];
  std::snprintf(cell, sizeof cell, "%.4g (epoch %lld)", best, static_cast<long long>(best_epoch));
  const auto table = train::best_scores_table(runs);
  EXPECT_NE(table.find(cell), std::string::npos) << cell << "\n" << table;
  EXPECT_NE(table.find("lowest val_loss"), std::string::npos) << table;
  const auto differences = train::settings_differences(runs);
  EXPECT_NE(differences.find("training.seed"), std::string::npos) << differences;
  EXPECT_NE(differences.find("training.epochs"), std::string::npos) << differences;
  EXPECT_EQ(differences.find("training.batch_size"), std::string::npos) << "the same in both\n" << differences;
  for (const auto* outcome : {"state.", "evaluation.", "split."}) {
    EXPECT_EQ(differences.find(outcome), std::string::npos) << "where a run ended is no setting\n" << differences;
  }
  const auto alone = train::settings_differences({runs[0], runs[0]});
  EXPECT_EQ(alone, "the runs' settings are the same (run-dir aside)\n");
}

TEST(RunComparison, WritesEveryRowInOneCsv) {
  const auto runs = both();
  const auto csv = train::comparison_csv(runs);
  std::istringstream lines(csv);
  std::string header;
  std::getline(lines, header);
  EXPECT_EQ(header.rfind("run,kind,epoch,step,wall_s,", 0), 0u) << header;
  EXPECT_NE(header.find(",val_bleu"), std::string::npos);
  std::size_t count = 0;
  for (std::string line; std::getline(lines, line);) ++count;
  EXPECT_EQ(count, runs[0].rows.size() + runs[1].rows.size());
}

// A metrics.csv edited by hand: fields that are not numbers are left out of the curves and
// counted in one line that says where the first is ("1.5x" is no number, "nan" is).
TEST(RunComparison, FieldsThatAreNoNumbersAreLeftOutAndCounted) {
  const auto dir = test::fresh_temp_dir("run_comparison_damaged");
  std::istringstream original(util::read_file((test::trained_seq2seq_run() / "metrics.csv").string()));
  std::vector<std::string> lines;
  for (std::string line; std::getline(original, line);) lines.push_back(line);
  ASSERT_GE(lines.size(), 4u);
  const auto replace_field = [](std::string& line, std::size_t field, const std::string& text) {
    std::size_t begin = 0;
    for (std::size_t i = 0; i < field; ++i) begin = line.find(',', begin) + 1;
    line.replace(begin, line.find(',', begin) - begin, text);
  };
  replace_field(lines[2], 2, "abc");  // column 2: step
  replace_field(lines[3], 2, "1.5x");
  replace_field(lines[1], 1, "nan");
  std::string text;
  for (const auto& line : lines) text += line + "\n";
  util::write_text_atomically((dir / "metrics.csv").string(), text);
  const auto run = train::read_run_curves(dir.string());
  EXPECT_EQ(run.unreadable_fields, (dir / "metrics.csv").string() +
                                       ": 2 fields are not a number and left out (first: line 3, column step: 'abc')");
  EXPECT_TRUE(std::isnan(run.rows.at(1).values.at("step")));
  EXPECT_TRUE(std::isnan(run.rows.at(2).values.at("step")));
  EXPECT_TRUE(train::read_run_curves(test::trained_seq2seq_run().string()).unreadable_fields.empty());

  // A quote opened on line 3 and never closed: the rows from there on cannot be read, and
  // the warning says so (one line left out is a row a crash cut off, said nothing of).
  std::string quoted;
  for (std::size_t i = 0; i < lines.size(); ++i) quoted += (i == 2 ? "\"" : "") + lines[i] + "\n";
  util::write_text_atomically((dir / "metrics.csv").string(), quoted);
  const auto cut = train::read_run_curves(dir.string());
  EXPECT_EQ(cut.rows.size(), 1u);
  EXPECT_NE(cut.unreadable_fields.find("its last " + std::to_string(lines.size() - 2) +
                                       " lines are left out: a quote opened on the first of them never closes"),
            std::string::npos)
      << cut.unreadable_fields;
  std::string crashed = text.substr(0, text.size() - 5);  // the last row cut off
  util::write_text_atomically((dir / "metrics.csv").string(), crashed);
  EXPECT_EQ(train::read_run_curves(dir.string()).unreadable_fields.find("left out:"), std::string::npos);
}

TEST(RunComparison, AFolderThatIsNoRunIsRefusedInOneLine) {
  const auto empty = test::fresh_temp_dir("run_comparison_empty");
  try {
    train::read_run_curves(empty.string());
    FAIL() << "no error";
  } catch (const std::runtime_error& error) {
    EXPECT_EQ(std::string(error.what()), empty.string() + ": no metrics.csv (not a training run's directory)");
  }
}

}  // namespace
}  // namespace run_comparison_test
}  // namespace dls

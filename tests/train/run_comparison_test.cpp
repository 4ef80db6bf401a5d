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
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "dls/train/run/resumed_settings.h"
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
  // DLStudio's summed loss beside the per-token mean: said, since one axis holds both.
  auto summed = runs[0], mean = runs[1];
  for (auto* run : {&summed, &mean}) {
    auto& settings = run->settings;
    settings.erase(
        std::remove_if(settings.begin(), settings.end(),
                       [](const auto& entry) { return entry.first.find("dlstudio_loss") != std::string::npos; }),
        settings.end());
  }
  summed.settings.emplace_back("dlstudio-loss", "true");
  mean.settings.emplace_back("data.dlstudio_loss", "false");
  EXPECT_NE(train::settings_differences({summed, mean})
                .find("note: " + summed.name +
                      " trained DLStudio's loss (--dlstudio-loss: summed over a sentence's "
                      "positions), " +
                      mean.name + " the mean per token"),
            std::string::npos);
  EXPECT_EQ(train::loss_definition_note({mean, mean}), "");
  // A ViT run beside a translation run (told by their rate columns): their losses share only
  // the axes.
  auto images = mean;
  images.name = "vit";
  for (auto& row : images.rows) {
    if (row.values.erase("pairs_per_s") > 0) row.values["images_per_s"] = 10;
  }
  EXPECT_EQ(train::model_kind_note({mean, mean}), "") << "one kind";
  EXPECT_NE(train::settings_differences({mean, images})
                .find("note: the runs trained different models (" + mean.name +
                      " a translation model, vit an image "
                      "classifier)"),
            std::string::npos)
      << train::model_kind_note({mean, images});
}

// A run that a resume gave other settings is compared as it became (config.resumed.toml), and
// the table says so.
TEST(RunComparison, ARunResumedWithOtherSettingsIsComparedAsItBecame) {
  const auto dir = test::fresh_temp_dir("run_comparison_resumed");
  for (const char* name : {"resumed", "plain"}) {
    fs::copy(test::trained_seq2seq_run(), dir / name, fs::copy_options::recursive);
    util::write_text_atomically((dir / name / "config.toml").string(), "epochs=2\nlr=0.001\n");
  }
  util::write_text_atomically((dir / "resumed" / train::kResumedConfigFile).string(),
                              "# changed: epochs 2 -> 3\nepochs=3\nlr=0.001\n");
  const auto differences = train::settings_differences(
      {train::read_run_curves((dir / "resumed").string()), train::read_run_curves((dir / "plain").string())});
  EXPECT_NE(differences.find("| epochs  | 3       | 2     |"), std::string::npos) << differences;
  EXPECT_EQ(differences.find("lr"), std::string::npos) << differences;
  EXPECT_NE(differences.find("(resumed: resumed with other settings, shown as config.resumed.toml has them; "
                             "config.toml has how it started)"),
            std::string::npos)
      << differences;
}

// A seq2seq run's config.toml lists the transformer's settings and the RNN's alike: each run
// is compared on those its architecture reads, the others shown as "-".
TEST(RunComparison, ATransformerAndAnRnnRunCompareWhatEachReads) {
  const auto dir = test::fresh_temp_dir("run_comparison_architectures");
  const std::map<std::string, std::string> configs = {
      {"transformer", "architecture=\"transformer\"\nheads=4\nrnn-hidden-size=256\nepochs=3\n"},
      {"transformer2", "architecture=\"transformer\"\nheads=4\nrnn-hidden-size=128\nepochs=3\n"},
      {"rnn", "architecture=\"rnn-attention\"\nheads=2\nrnn-hidden-size=512\nepochs=3\n"}};
  std::map<std::string, train::RunCurves> runs;
  for (const auto& [name, config] : configs) {
    fs::copy(test::trained_seq2seq_run(), dir / name, fs::copy_options::recursive);
    util::write_text_atomically((dir / name / "config.toml").string(), config);
    runs.emplace(name, train::read_run_curves((dir / name).string()));
  }
  const auto differing = train::differing_settings({runs.at("transformer"), runs.at("rnn")});
  const auto values_of = [&](const std::string& name) {
    for (const auto& [setting, values] : differing) {
      if (setting == name) return values;
    }
    return std::vector<std::string>{};
  };
  EXPECT_EQ(values_of("architecture"), (std::vector<std::string>{"transformer", "rnn-attention"}));
  EXPECT_EQ(values_of("heads"), (std::vector<std::string>{"4", "-"}));
  EXPECT_EQ(values_of("rnn-hidden-size"), (std::vector<std::string>{"-", "512"}));
  EXPECT_TRUE(values_of("epochs").empty());
  // Two transformers whose unread RNN settings differ: the same model, nothing to show.
  EXPECT_TRUE(train::differing_settings({runs.at("transformer"), runs.at("transformer2")}).empty());
}

// Runs whose folders share a name are named by as much of their paths as tells them apart; a
// run given twice is compared once.
TEST(RunComparison, RunsOfOneFolderNameAreToldApartAndARepeatIsComparedOnce) {
  const auto dir = test::fresh_temp_dir("run_comparison_names");
  for (const char* copy : {"x/run", "y/run"}) {
    fs::create_directories(dir / copy);
    fs::copy(test::trained_seq2seq_run(), dir / copy, fs::copy_options::recursive);
  }
  std::vector<std::string> repeats;
  const auto dirs = train::distinct_run_dirs(
      {(dir / "x/run").string(), (dir / "y/run").string(), (dir / "x/run/").string(), (dir / "x/../x/run").string()},
      repeats);
  ASSERT_EQ(dirs.size(), 2u);
  ASSERT_EQ(repeats.size(), 2u);
  EXPECT_EQ(repeats[0],
            (dir / "x/run/").string() + ": the same run as " + (dir / "x/run").string() + ", compared once");
  std::vector<train::RunCurves> runs;
  for (const auto& run : dirs) runs.push_back(train::read_run_curves(run));
  train::name_runs_apart(runs);
  EXPECT_EQ(runs[0].name, "x/run");
  EXPECT_EQ(runs[1].name, "y/run");
  auto others = both();
  const auto before = others[0].name;
  train::name_runs_apart(others);
  EXPECT_EQ(others[0].name, before) << "names that differ stay as they are";
}

// A run of one logged row (one epoch) still has its training loss drawn from loss_steps.csv,
// against wall time too (the clock's line from the start through that row).
TEST(RunComparison, ARunOfOneLoggedRowHasItsTrainingLossCurve) {
  const auto dir = test::fresh_temp_dir("run_comparison_one_row");
  fs::copy(test::trained_seq2seq_run(), dir, fs::copy_options::recursive);
  std::istringstream lines(util::read_file((dir / "metrics.csv").string()));
  std::string header, line, last_epoch;
  std::getline(lines, header);
  while (std::getline(lines, line)) {
    if (line.rfind("epoch,", 0) == 0) last_epoch = line;
  }
  ASSERT_FALSE(last_epoch.empty());
  util::write_text_atomically((dir / "metrics.csv").string(), header + "\n" + last_epoch + "\n");
  const auto run = train::read_run_curves(dir.string());
  ASSERT_GT(run.step_losses.size(), 2u);
  for (const auto& row : run.step_losses) EXPECT_TRUE(std::isfinite(row.values.at("wall_s")));
  const auto metrics = train::compared_metrics({run});
  EXPECT_TRUE(std::any_of(metrics.begin(), metrics.end(), [](const auto& m) { return m.column == "loss"; }));
}

// config.toml that cannot be read (empty, not TOML) gives way to the checkpoint, with a
// warning; runs read from config.toml and from a checkpoint are compared on the names both
// have, not shown as different in every setting.
TEST(RunComparison, SettingsFromADamagedOrMissingConfigAreReadFromTheCheckpoint) {
  const auto dir = test::fresh_temp_dir("run_comparison_config");
  fs::copy(test::trained_seq2seq_run(), dir / "a", fs::copy_options::recursive);
  fs::copy(test::trained_seq2seq_run(), dir / "b", fs::copy_options::recursive);
  test::write_bytes(dir / "a" / "config.toml", "epochs=3\nseed=5\ntrain\n");
  const auto damaged = train::read_run_curves((dir / "a").string());
  EXPECT_NE(damaged.settings_warning.find("config.toml:3"), std::string::npos) << damaged.settings_warning;
  EXPECT_NE(damaged.settings_warning.find("; the settings are read from "), std::string::npos);
  EXPECT_EQ(damaged.settings_source.find("config.toml"), std::string::npos);
  test::write_bytes(dir / "a" / "config.toml", "");
  EXPECT_NE(train::read_run_curves((dir / "a").string()).settings_warning.find("config.toml: empty"),
            std::string::npos);
  test::write_bytes(dir / "a" / "config.toml", "epochs=3\nseed=5\n");
  const std::vector<train::RunCurves> mixed{train::read_run_curves((dir / "a").string()),
                                            train::read_run_curves((dir / "b").string())};
  EXPECT_TRUE(train::differing_settings(mixed).empty());
  EXPECT_NE(train::settings_differences(mixed).find("(settings of b from their checkpoints"), std::string::npos);
  // A run without settings (metrics.csv alone) leaves the others' differences as they are.
  fs::create_directories(dir / "bare");
  fs::copy_file(test::trained_seq2seq_run() / "metrics.csv", dir / "bare" / "metrics.csv");
  auto with_bare = both();
  with_bare.insert(with_bare.begin() + 1, train::read_run_curves((dir / "bare").string()));
  const auto differing = train::differing_settings(with_bare);
  ASSERT_EQ(differing.size(), train::differing_settings(both()).size());
  EXPECT_EQ(differing.front().second.at(1), "(unknown)");
}

// --json holds what the tables show; a later comparison into the same folder removes the
// pictures of metrics it does not draw.
TEST(RunComparison, TheJsonHoldsTheTablesAndStalePicturesGo) {
  const auto runs = both();
  const auto json = train::comparison_json(runs, {"a.png"});
  const auto differing = train::differing_settings(runs);
  ASSERT_FALSE(differing.empty());
  EXPECT_NE(json.find("\"differing_settings\":{\"" + differing.front().first + "\":{"), std::string::npos) << json;
  EXPECT_NE(json.find("\"best\":{\"val_loss\":{\"value\":"), std::string::npos) << json;
  EXPECT_NE(json.find("\"files\":[\"a.png\"]"), std::string::npos) << json;
  const auto out = test::fresh_temp_dir("run_comparison_stale");
  for (const char* name : {"compare_val_bleu.png", "compare_val_accuracy.png", "mine.png", "compare_my_notes.png"})
    test::write_bytes(out / name, "x");
  const auto removed = train::remove_stale_pictures(out.string(), {(out / "compare_val_bleu.png").string()});
  EXPECT_EQ(removed, std::vector<std::string>{(out / "compare_val_accuracy.png").string()});
  EXPECT_TRUE(fs::exists(out / "compare_val_bleu.png"));
  EXPECT_TRUE(fs::exists(out / "mine.png"));
  EXPECT_TRUE(fs::exists(out / "compare_my_notes.png")) << "not a name a comparison writes";
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

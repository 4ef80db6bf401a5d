// Several training runs side by side (the compare_runs program): each run's evaluations and
// training loss from its metrics.csv, drawn against epoch, optimizer step and wall time in one
// picture per metric; a table of each run's best scores; the settings in which the runs
// differ (from their config.toml, else their newest checkpoint); and every row of every run
// in one CSV. The lecture's comparisons (FG vs PreLN, warm-up or not, masking or not, a
// pre-trained decoder or not) are this on two run directories.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "dls/util/canvas.h"
#include "dls/util/line_plot.h"

namespace dls::train {

// One run as metrics.csv has it.
struct RunCurves {
  // The run directory's name ("runs/fg" -> "fg"); name_runs_apart() lengthens it where two
  // runs' folders share a name ("x/run", "y/run").
  std::string name;
  std::string dir;
  // metrics.csv's rows: kind ("step" or "epoch"), then the numbers by column (NaN: empty).
  struct Row {
    std::string kind;
    std::map<std::string, double> values;  // epoch, step, wall_s, loss, val_loss, val_bleu, ...
  };
  std::vector<Row> rows;
  // The training loss of every step (loss_steps.csv), binned to at most 300 points, each with
  // its step, loss and wall_s (interpolated between the logged rows' wall times); empty for a
  // run without that file, whose "step" rows then draw the curve.
  std::vector<Row> step_losses;
  // The run's settings, by name: config.toml's flags, else the newest checkpoint's keys
  // (but its progress, state and split: where the run stood, not how it was set up).
  std::vector<std::pair<std::string, std::string>> settings;
  std::string settings_source;  // config.resumed.toml, config.toml or the checkpoint file
  // Non-empty when config.toml could not give the settings (empty, or not TOML: a line on
  // why) and the checkpoint gave them.
  std::string settings_warning;
  // Non-empty when fields of metrics.csv were not numbers, or its last lines were left out
  // after a quote that never closes (a file edited or damaged by hand): one line saying how
  // many, and where the first is; they are left out of the curves.
  std::string unreadable_fields;
};

// Reads `run_dir`. Throws std::runtime_error "RUN: no metrics.csv (not a training run's
// directory)" and the like, in one line.
RunCurves read_run_curves(const std::string& run_dir);

// `dirs` without repeats of one folder ("a", "./a/", a link to it), in their order; a line in
// `repeats` for each left out.
std::vector<std::string> distinct_run_dirs(const std::vector<std::string>& dirs, std::vector<std::string>& repeats);

// Names runs whose folders share a name by as much of their paths as tells them apart:
// "x/run" and "y/run", not "run" twice (tables, legends and compare.csv name runs by it).
void name_runs_apart(std::vector<RunCurves>& runs);

// A metric the runs can be compared on: a column of their epoch rows (val_loss, val_bleu,
// val_chrf, val_accuracy, val_perplexity, ...) or the step rows' training loss ("loss"), with
// whether lower is better.
struct ComparedMetric {
  std::string column;
  std::string label;  // "validation BLEU (NLTK x 100)"
  bool from_steps = false;
  bool lower_is_better = false;
};
// The metrics at least one run has a number for, in a fixed order.
std::vector<ComparedMetric> compared_metrics(const std::vector<RunCurves>& runs);

// One picture per metric: the runs against epoch (not for the step rows' loss), step and wall
// time, side by side. `panels` are what is drawn, so that tests read legends and values.
struct ComparisonPicture {
  std::string file;  // "compare_val_bleu.png"
  std::string title;
  std::vector<util::LinePlot> panels;
  util::Canvas render() const;
};
std::vector<ComparisonPicture> comparison_pictures(const std::vector<RunCurves>& runs);

// Each run's last logged step and its wall time, and its best score per metric (the epoch it
// came at), as a table.
std::string best_scores_table(const std::vector<RunCurves>& runs);
// The settings whose values differ between the runs (run-dir aside): each with a value per
// run, "(none)" where a run has none, "-" where a seq2seq run's architecture does not read it
// (an RNN run's transformer sizes, a transformer run's RNN settings). Runs whose settings come from different sources
// (config.toml's flag names, a checkpoint's keys) are compared on the names every run has.
std::vector<std::pair<std::string, std::vector<std::string>>> differing_settings(const std::vector<RunCurves>& runs);
// The same as a table; a line saying so when they are all the same; then the notes of
// loss_definition_note() and model_kind_note().
std::string settings_differences(const std::vector<RunCurves>& runs);
// "note: ..." when some runs trained DLStudio's summed loss and others the per-token mean,
// whose losses one axis cannot compare; "" otherwise.
std::string loss_definition_note(const std::vector<RunCurves>& runs);
// "note: ..." when the runs trained different kinds of model (translation, images, language,
// told by their metrics' rate column): one plot of their losses compares nothing; "" otherwise.
std::string model_kind_note(const std::vector<RunCurves>& runs);
// What the tables say, as one JSON object: {"runs": [{"name", "dir", "last_step", "wall_s",
// "best": {metric: {"value", "epoch"}}}], "differing_settings": {setting: {run: value}},
// "files": [...]}.
std::string comparison_json(const std::vector<RunCurves>& runs, const std::vector<std::string>& files);
// Removes the pictures a comparison writes (compare_METRIC.png of a metric it knows) in `out`
// that are not among `written` (an earlier comparison's, of metrics this one does not draw),
// returning their paths; other files stay.
std::vector<std::string> remove_stale_pictures(const std::string& out, const std::vector<std::string>& written);
// Every row of every run, a column per metric: run,kind,epoch,step,wall_s,...
std::string comparison_csv(const std::vector<RunCurves>& runs);

}  // namespace dls::train

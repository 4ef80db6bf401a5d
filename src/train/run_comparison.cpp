#include "dls/train/run_comparison.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <stdexcept>

#include "dls/checkpoint/checkpoint.h"
#include "dls/checkpoint/checkpoint_files.h"
#include "dls/settings/seq2seq_settings.h"
#include "dls/train/run/resumed_settings.h"
#include "dls/util/csv.h"
#include "dls/util/file_io.h"
#include "dls/util/image_panel.h"
#include "dls/util/json.h"
#include "dls/util/resolved_path.h"
#include "dls/util/table.h"
#include "dls/util/toml_subset.h"
#include "train/metrics_file.h"

namespace dls::train {

namespace {

namespace fs = std::filesystem;

// The metrics a comparison knows, in the order it shows them: column, label, lower is better.
struct KnownMetric {
  const char* column;
  const char* label;
  bool lower_is_better;
};
constexpr KnownMetric kKnownMetrics[] = {
    {"val_loss", "validation loss", true},
    {"val_bleu", "validation BLEU (NLTK, 0-1)", false},
    {"val_sacrebleu", "validation BLEU (sacreBLEU)", false},
    {"val_chrf", "validation chrF2", false},
    {"val_accuracy", "validation accuracy", false},
    {"test_accuracy", "test accuracy", false},
    {"test_loss", "test loss", true},
    {"val_perplexity", "validation perplexity", true},
    {"val_word_perplexity", "validation perplexity per word", true},
};

std::string shown(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.4g", value);
  return text;
}

// The rows of `run` a metric reads: the step rows for the training loss, else the epoch rows
// and the final one (a run stopped mid-epoch).
bool reads(const ComparedMetric& metric, const RunCurves::Row& row) {
  return metric.from_steps ? row.kind == "step" : row.kind == "epoch" || row.kind == "final";
}

double value_of(const RunCurves::Row& row, const std::string& column) {
  const auto found = row.values.find(column);
  return found == row.values.end() ? NAN : found->second;
}

std::vector<std::pair<std::string, std::string>> settings_of(const fs::path& dir, std::string* source,
                                                             std::string* warning) {
  std::vector<std::pair<std::string, std::string>> settings;
  // What the run became: a resume that changed settings wrote them beside config.toml.
  const auto config = fs::exists(dir / kResumedConfigFile) ? dir / kResumedConfigFile : dir / "config.toml";
  if (fs::exists(config)) {
    try {
      for (const auto& item : util::parse_toml_subset(util::read_file(config.string()), config.string())) {
        std::string value;
        for (const auto& each : item.values) value += (value.empty() ? "" : ",") + each;
        settings.emplace_back(item.name, value);
      }
      if (settings.empty()) *warning = config.string() + ": empty";
    } catch (const std::exception& error) {  // it only feeds the settings table: the checkpoint can
      *warning = error.what();
      settings.clear();
    }
    if (warning->empty()) {
      *source = config.string();
      return settings;
    }
  }
  if (!fs::exists(dir / "checkpoints")) {
    if (!warning->empty()) *warning += "; no checkpoint to read the settings from";
    return settings;
  }
  const checkpoint::CheckpointReader reader(checkpoint::latest_checkpoint(dir.string()));
  *source = reader.path();
  for (const auto& [key, value] : reader.settings().entries()) {
    // Where the run stood and what it scored last, not how it was set up.
    const bool progress = key.rfind("progress.", 0) == 0 || key.rfind("state.", 0) == 0 ||
                          key.rfind("evaluation.", 0) == 0 || key.rfind("split.", 0) == 0;
    if (!progress) settings.emplace_back(key, value);
  }
  if (!warning->empty()) *warning += "; the settings are read from " + reader.path();
  return settings;
}

// The wall time at `step`, on the line through the logged rows' (step, wall_s) points
// (extended past the first and last), never below 0; NaN with fewer than two points.
double wall_at(const std::vector<std::pair<double, double>>& points, double step) {
  if (points.size() < 2) return NAN;
  std::size_t i = 1;
  while (i + 1 < points.size() && points[i].first < step) ++i;
  const auto [s0, w0] = points[i - 1];
  const auto [s1, w1] = points[i];
  if (s1 == s0) return w1;
  return std::max(0.0, w0 + (step - s0) * (w1 - w0) / (s1 - s0));
}

std::vector<RunCurves::Row> binned_step_losses(const std::string& metrics_path,
                                               const std::vector<std::vector<std::string>>& metrics_rows,
                                               const std::vector<RunCurves::Row>& rows) {
  std::vector<RunCurves::Row> binned;
  if (!fs::exists(step_loss_path(metrics_path))) return binned;
  std::vector<std::pair<double, double>> clock;  // (step, wall_s) of the logged rows, by step
  for (const auto& row : rows) {
    const double step = value_of(row, "step"), wall = value_of(row, "wall_s");
    if (std::isfinite(step) && std::isfinite(wall)) clock.emplace_back(step, wall);
  }
  std::sort(clock.begin(), clock.end());
  // One logged row (a run of one epoch): the clock's line from the start through it.
  if (clock.size() == 1 && clock.front().first > 0) clock.insert(clock.begin(), {0.0, 0.0});
  const auto curve = training_loss_curve(metrics_path, metrics_rows, 300);
  for (std::size_t i = 0; i < curve.steps.size(); ++i) {
    binned.push_back(
        {"step", {{"step", curve.steps[i]}, {"loss", curve.losses[i]}, {"wall_s", wall_at(clock, curve.steps[i])}}});
  }
  return binned;
}

}  // namespace

RunCurves read_run_curves(const std::string& run_dir) {
  const fs::path dir(run_dir);
  const auto metrics = dir / "metrics.csv";
  if (!fs::is_directory(dir)) throw std::runtime_error(run_dir + ": not a directory");
  if (!fs::exists(metrics)) throw std::runtime_error(run_dir + ": no metrics.csv (not a training run's directory)");
  RunCurves run;
  run.dir = run_dir;
  run.name = fs::absolute(dir).lexically_normal().filename().string();
  if (run.name.empty()) run.name = fs::absolute(dir).lexically_normal().parent_path().filename().string();
  std::size_t left_out = 0;
  const auto rows = read_metrics_rows(metrics.string(), &left_out);
  if (rows.empty() || rows.front().empty() || rows.front().front() != "kind") {
    throw std::runtime_error(metrics.string() + ": not a metrics.csv of this project (no 'kind' column)");
  }
  const auto& header = rows.front();
  std::size_t malformed = 0;
  for (std::size_t i = 1; i < rows.size(); ++i) {
    RunCurves::Row row;
    row.kind = rows[i].empty() ? "" : rows[i].front();
    for (std::size_t column = 1; column < header.size(); ++column) {
      row.values[header[column]] = metric_number(rows[i], column);
      if (column < rows[i].size() && is_malformed_number(rows[i][column]) && malformed++ == 0) {
        run.unreadable_fields = "line " + std::to_string(i + 1) + ", column " + header[column] + ": '" +
                                rows[i][column].substr(0, 40) + "'";
      }
    }
    run.rows.push_back(std::move(row));
  }
  if (malformed > 0) {
    run.unreadable_fields = metrics.string() + ": " + std::to_string(malformed) +
                            (malformed == 1 ? " field is" : " fields are") +
                            " not a number and left out (first: " + run.unreadable_fields + ")";
  }
  if (left_out > 1) {  // one line is a row a crash cut off; more, a quote that never closes
    run.unreadable_fields += (run.unreadable_fields.empty() ? metrics.string() + ": " : "; ") + "its last " +
                             std::to_string(left_out) + " lines are left out: a quote opened on the first of them " +
                             "never closes";
  }
  run.step_losses = binned_step_losses(metrics.string(), rows, run.rows);
  run.settings = settings_of(dir, &run.settings_source, &run.settings_warning);
  return run;
}

std::vector<ComparedMetric> compared_metrics(const std::vector<RunCurves>& runs) {
  std::vector<ComparedMetric> metrics;
  const auto has_number = [&](const ComparedMetric& metric) {
    for (const auto& run : runs) {
      // The training loss: the steps loss_steps.csv kept, where the run has it.
      const auto& rows = metric.from_steps && !run.step_losses.empty() ? run.step_losses : run.rows;
      for (const auto& row : rows) {
        if (reads(metric, row) && std::isfinite(value_of(row, metric.column))) return true;
      }
    }
    return false;
  };
  for (const auto& known : kKnownMetrics) {
    ComparedMetric metric{known.column, known.label, false, known.lower_is_better};
    if (has_number(metric)) metrics.push_back(metric);
  }
  const ComparedMetric training{"loss", "training loss", true, true};
  if (has_number(training)) metrics.push_back(training);
  return metrics;
}

util::Canvas ComparisonPicture::render() const {
  std::vector<util::Canvas> canvases;
  for (const auto& panel : panels) canvases.push_back(panel.render(560, 400));
  return util::tile_panels(canvases, static_cast<int>(canvases.size()), title);
}

std::vector<ComparisonPicture> comparison_pictures(const std::vector<RunCurves>& runs) {
  std::vector<ComparisonPicture> pictures;
  for (const auto& metric : compared_metrics(runs)) {
    ComparisonPicture picture{"compare_" + metric.column + ".png", metric.label, {}};
    std::vector<std::pair<std::string, std::string>> axes;  // column, label
    if (!metric.from_steps) axes.emplace_back("epoch", "epoch");
    axes.emplace_back("step", "optimizer step");
    axes.emplace_back("wall_s", "wall time (s)");
    for (const auto& [column, label] : axes) {
      util::LinePlot plot("by " + label);
      plot.x_label(label).y_label(metric.label);
      for (const auto& run : runs) {
        std::vector<double> x, y;
        // The training loss: every step's, binned, where the run kept them.
        const auto& rows = metric.from_steps && !run.step_losses.empty() ? run.step_losses : run.rows;
        for (const auto& row : rows) {
          if (!reads(metric, row)) continue;
          x.push_back(value_of(row, column));
          y.push_back(value_of(row, metric.column));
        }
        plot.add_series(run.name, std::move(x), std::move(y));
      }
      picture.panels.push_back(std::move(plot));
    }
    pictures.push_back(std::move(picture));
  }
  return pictures;
}

namespace {

// The metrics of the epoch rows (the best-scores table's columns).
std::vector<ComparedMetric> epoch_metrics(const std::vector<RunCurves>& runs) {
  std::vector<ComparedMetric> metrics;
  for (const auto& metric : compared_metrics(runs)) {
    if (!metric.from_steps) metrics.push_back(metric);
  }
  return metrics;
}

struct BestScores {
  double last_step = 0, wall = 0;
  std::vector<std::pair<double, double>> best;  // per metric: value and its epoch (NaN: none)
};

BestScores best_scores_of(const RunCurves& run, const std::vector<ComparedMetric>& metrics) {
  BestScores scores;
  for (const auto& row : run.rows) {
    if (std::isfinite(value_of(row, "step"))) scores.last_step = std::max(scores.last_step, value_of(row, "step"));
    if (std::isfinite(value_of(row, "wall_s"))) scores.wall = std::max(scores.wall, value_of(row, "wall_s"));
  }
  for (const auto& metric : metrics) {
    double best = NAN, epoch = NAN;
    for (const auto& row : run.rows) {
      const double value = value_of(row, metric.column);
      if (!reads(metric, row) || !std::isfinite(value)) continue;
      if (!std::isfinite(best) || (metric.lower_is_better ? value < best : value > best)) {
        best = value;
        epoch = value_of(row, "epoch");
      }
    }
    scores.best.emplace_back(best, epoch);
  }
  return scores;
}

// Whether `run`'s settings are its config.toml's (flag names), not a checkpoint's keys.
bool settings_from_config(const RunCurves& run) {
  const auto name = fs::path(run.settings_source).filename();
  return name == "config.toml" || name == kResumedConfigFile;
}

// Some runs' settings from config.toml, others' from a checkpoint (runs without settings
// aside).
bool mixed_sources(const std::vector<RunCurves>& runs) {
  bool config = false, checkpoint = false;
  for (const auto& run : runs) {
    if (run.settings.empty()) continue;
    (settings_from_config(run) ? config : checkpoint) = true;
  }
  return config && checkpoint;
}

}  // namespace

std::string best_scores_table(const std::vector<RunCurves>& runs) {
  const auto metrics = epoch_metrics(runs);
  std::vector<std::string> headers{"run", "last step logged", "at wall (s)"};
  for (const auto& metric : metrics) headers.push_back((metric.lower_is_better ? "lowest " : "best ") + metric.column);
  util::Table table(headers, std::vector<util::Align>(headers.size(), util::Align::kRight));
  for (const auto& run : runs) {
    const auto scores = best_scores_of(run, metrics);
    std::vector<std::string> cells{run.name, shown(scores.last_step), shown(scores.wall)};
    for (const auto& [best, epoch] : scores.best) {
      cells.push_back(std::isfinite(best) ? shown(best) + " (epoch " + shown(epoch) + ")" : "-");
    }
    table.add_row(std::move(cells));
  }
  return table.to_string();
}

// Whether a seq2seq run's architecture does not read `name` (a config.toml flag or a checkpoint
// key): every run lists the transformer's settings ("model" section) and the RNN's ("rnn"),
// and only its architecture's are its model.
bool unread_by_architecture(const RunCurves& run, const std::string& name) {
  std::string architecture;
  for (const auto& [key, value] : run.settings) {
    if (key == "architecture" || key == "training.architecture") architecture = value;
  }
  if (architecture.empty()) return false;  // not a seq2seq run
  const bool rnn = architecture == to_string(Architecture::kRnnAttention);
  const std::string other = rnn ? "model." : "rnn.";  // the section of the settings it does not read
  if (name.rfind(other, 0) == 0) return true;         // a checkpoint's key
  static const auto transformer_flags = util::declared_flag_names(settings::Seq2SeqTrainSettings{}, "model.");
  static const auto rnn_flags = util::declared_flag_names(settings::Seq2SeqTrainSettings{}, "rnn.");
  const auto& flags = rnn ? transformer_flags : rnn_flags;
  return std::find(flags.begin(), flags.end(), name) != flags.end();
}

std::vector<std::pair<std::string, std::vector<std::string>>> differing_settings(const std::vector<RunCurves>& runs) {
  std::vector<std::string> keys;
  for (const auto& run : runs) {
    for (const auto& [key, value] : run.settings) {
      if (std::find(keys.begin(), keys.end(), key) == keys.end()) keys.push_back(key);
    }
  }
  // config.toml names settings by their flags, a checkpoint by its keys: a name one kind of
  // source lacks is no difference between runs read from both kinds.
  const bool mixed = mixed_sources(runs);
  // A run whose settings could not be read (no config.toml, no checkpoint) shows "(unknown)"
  // and is left out of the comparison, which the runs that have settings decide.
  std::vector<std::pair<std::string, std::vector<std::string>>> differing;
  for (const auto& key : keys) {
    if (key == "run-dir") continue;  // a run's own folder
    std::vector<std::string> values, known;
    bool everyone_has_it = true;
    for (const auto& run : runs) {
      if (run.settings.empty()) {
        values.emplace_back("(unknown)");
        continue;
      }
      const auto found =
          std::find_if(run.settings.begin(), run.settings.end(), [&](const auto& entry) { return entry.first == key; });
      everyone_has_it = everyone_has_it && found != run.settings.end();
      values.push_back(found == run.settings.end()                 ? "(none)"
                       : unread_by_architecture(run, found->first) ? "-"
                                                                   : found->second);
      known.push_back(values.back());
    }
    if (mixed && !everyone_has_it) continue;
    if (std::all_of(known.begin(), known.end(), [&](const std::string& value) { return value == known.front(); })) {
      continue;
    }
    differing.emplace_back(key, std::move(values));
  }
  return differing;
}

std::string loss_definition_note(const std::vector<RunCurves>& runs) {
  // config.toml's "dlstudio-loss", a checkpoint's "data.dlstudio_loss" (its key, in a section).
  std::vector<std::string> summed, mean;
  for (const auto& run : runs) {
    const auto found = std::find_if(run.settings.begin(), run.settings.end(), [](const auto& entry) {
      return entry.first == "dlstudio-loss" || entry.first == "dlstudio_loss" ||
             (entry.first.size() > 14 && entry.first.compare(entry.first.size() - 14, 14, ".dlstudio_loss") == 0);
    });
    if (found == run.settings.end()) continue;
    (found->second == "true" ? summed : mean).push_back(run.name);
  }
  if (summed.empty() || mean.empty()) return "";
  const auto join = [](const std::vector<std::string>& names) {
    std::string text;
    for (const auto& name : names) text += (text.empty() ? "" : ", ") + name;
    return text;
  };
  return "note: " + join(summed) + " trained DLStudio's loss (--dlstudio-loss: summed over a sentence's positions), " +
         join(mean) + " the mean per token: their loss and val_loss are on different scales; compare their scores\n";
}

namespace {

// What a run trained, from its metrics' rate column: "a translation model" (pairs_per_s),
// "an image classifier" (images_per_s), "a language model" (sentences_per_s); "" unknown.
std::string model_kind(const RunCurves& run) {
  for (const auto& row : run.rows) {
    if (row.values.count("pairs_per_s") > 0) return "a translation model";
    if (row.values.count("images_per_s") > 0) return "an image classifier";
    if (row.values.count("sentences_per_s") > 0) return "a language model";
  }
  return "";
}

}  // namespace

std::string model_kind_note(const std::vector<RunCurves>& runs) {
  std::string first, listed;
  bool mixed = false;
  for (const auto& run : runs) {
    const auto kind = model_kind(run);
    if (kind.empty()) continue;
    if (first.empty()) first = kind;
    mixed = mixed || kind != first;
    listed += (listed.empty() ? "" : ", ") + run.name + " " + kind;
  }
  if (!mixed) return "";
  return "note: the runs trained different models (" + listed +
         "): their losses measure different things and share only the axes\n";
}

std::string settings_differences(const std::vector<RunCurves>& runs) {
  std::vector<std::string> headers{"setting"};
  for (const auto& run : runs) headers.push_back(run.name);
  util::Table table(headers);
  for (auto& [key, values] : differing_settings(runs)) {
    std::vector<std::string> cells{key};
    cells.insert(cells.end(), values.begin(), values.end());
    table.add_row(std::move(cells));
  }
  std::string note;  // when the names differ between the runs' sources
  const bool mixed = mixed_sources(runs);
  for (const auto& run : runs) {
    if (!mixed || run.settings_source.empty() || settings_from_config(run)) continue;
    note += (note.empty() ? "" : ", ") + run.name;
  }
  if (!note.empty()) note = "(settings of " + note + " from their checkpoints, whose names are not config.toml's)\n";
  std::string resumed;  // runs whose settings a resume changed: the table shows their latest
  for (const auto& run : runs) {
    if (fs::path(run.settings_source).filename() == kResumedConfigFile)
      resumed += (resumed.empty() ? "" : ", ") + run.name;
  }
  if (!resumed.empty())
    note += "(" + resumed + ": resumed with other settings, shown as " + kResumedConfigFile +
            " has them; config.toml has how it started)\n";
  note += loss_definition_note(runs) + model_kind_note(runs);
  if (table.rows() == 0) return "the runs' settings are the same (run-dir aside)\n" + note;
  return table.to_string() + note;
}

std::string comparison_json(const std::vector<RunCurves>& runs, const std::vector<std::string>& files) {
  const auto metrics = epoch_metrics(runs);
  util::JsonWriter writer;
  writer.begin_object().key("runs").begin_array();
  for (const auto& run : runs) {
    const auto scores = best_scores_of(run, metrics);
    writer.begin_object().field("name", run.name).field("dir", run.dir);
    writer.field("last_step", scores.last_step).field("wall_s", scores.wall).key("best").begin_object();
    for (std::size_t i = 0; i < metrics.size(); ++i) {
      writer.key(metrics[i].column).begin_object();
      writer.field("value", scores.best[i].first).field("epoch", scores.best[i].second).end_object();
    }
    writer.end_object().end_object();
  }
  writer.end_array().key("differing_settings").begin_object();
  for (const auto& [key, values] : differing_settings(runs)) {
    writer.key(key).begin_object();
    for (std::size_t i = 0; i < runs.size(); ++i) writer.field(runs[i].name, values[i]);
    writer.end_object();
  }
  writer.end_object().key("files").begin_array();
  for (const auto& file : files) writer.value(file);
  writer.end_array().end_object();
  return writer.str();
}

std::vector<std::string> remove_stale_pictures(const std::string& out, const std::vector<std::string>& written) {
  std::vector<std::string> removed;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(out, error)) {
    // Only the names a comparison writes: a compare_my_notes.png of the user's stays.
    const auto name = entry.path().filename().string();
    bool picture = name == "compare_loss.png";
    for (const auto& known : kKnownMetrics)
      picture = picture || name == "compare_" + std::string(known.column) + ".png";
    if (!picture || std::find(written.begin(), written.end(), entry.path().string()) != written.end()) continue;
    if (fs::remove(entry.path(), error)) removed.push_back(entry.path().string());
  }
  return removed;
}

std::vector<std::string> distinct_run_dirs(const std::vector<std::string>& dirs, std::vector<std::string>& repeats) {
  std::vector<std::string> kept, canonical;
  for (const auto& dir : dirs) {
    const auto path = util::resolved_path(dir);
    const auto seen = std::find(canonical.begin(), canonical.end(), path);
    if (seen != canonical.end()) {
      repeats.push_back(dir + ": the same run as " + kept[static_cast<std::size_t>(seen - canonical.begin())] +
                        ", compared once");
      continue;
    }
    kept.push_back(dir);
    canonical.push_back(path);
  }
  return kept;
}

void name_runs_apart(std::vector<RunCurves>& runs) {
  // Each run's path, from its folder outwards: {"run", "x", "tmp", ...}.
  std::vector<std::vector<std::string>> parts;
  for (const auto& run : runs) {
    std::vector<std::string> names;
    for (auto path = fs::absolute(run.dir).lexically_normal(); !path.empty() && path != path.root_path();
         path = path.parent_path()) {
      if (path.has_filename()) names.push_back(path.filename().string());
      if (path.parent_path() == path) break;
    }
    if (names.empty()) names.push_back(run.name);
    parts.push_back(std::move(names));
  }
  const auto label = [&](std::size_t i, std::size_t depth) {
    std::string text;
    for (std::size_t k = std::min(depth, parts[i].size()); k-- > 0;) text += (text.empty() ? "" : "/") + parts[i][k];
    return text;
  };
  for (std::size_t i = 0; i < runs.size(); ++i) {
    std::size_t depth = 1;
    for (bool clash = true; clash && depth < parts[i].size();) {
      clash = false;
      for (std::size_t j = 0; j < runs.size() && !clash; ++j) clash = j != i && label(j, depth) == label(i, depth);
      if (clash) ++depth;
    }
    runs[i].name = label(i, depth);
  }
}

std::string comparison_csv(const std::vector<RunCurves>& runs) {
  std::vector<std::string> columns{"epoch", "step", "wall_s"};
  for (const auto& run : runs) {
    for (const auto& row : run.rows) {
      for (const auto& [column, value] : row.values) {
        if (std::find(columns.begin(), columns.end(), column) == columns.end()) columns.push_back(column);
      }
    }
  }
  std::vector<std::string> header{"run", "kind"};
  header.insert(header.end(), columns.begin(), columns.end());
  std::string csv = util::csv_line(header);
  for (const auto& run : runs) {
    for (const auto& row : run.rows) {
      std::vector<std::string> fields{run.name, row.kind};
      for (const auto& column : columns) {
        const double value = value_of(row, column);
        char text[32] = "";
        if (std::isfinite(value)) std::snprintf(text, sizeof text, "%.9g", value);
        fields.emplace_back(text);
      }
      csv += util::csv_line(fields);
    }
  }
  return csv;
}

}  // namespace dls::train

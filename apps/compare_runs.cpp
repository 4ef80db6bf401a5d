// compare_runs: several training runs side by side -- their validation scores and training
// loss against epoch, step and wall time (one PNG per metric), their best scores, the
// settings in which they differ, and every metrics row in one CSV (train/run_comparison.h).
//
//   compare_runs runs/fg runs/preln                  FG against PreLN
//   compare_runs runs/* --out results/all --json     any number of runs, any task
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "dls/cli/command_line.h"
#include "dls/cli/error_line.h"
#include "dls/train/run_comparison.h"
#include "dls/util/file_io.h"
#include "dls/util/create_folder.h"

int main(int argc, char** argv) {
  CLI::App app{
      "Compare training runs: validation scores and training loss against epoch, step and wall time\n"
      "(compare_METRIC.png, one per metric), the best scores, the settings that differ, and\n"
      "compare.csv with every metrics row of every run, written into --out."};
  std::vector<std::string> runs;
  std::string out = "compare";
  bool json = false;
  // Not checked here: CLI11 would check the value of an option it does not know ("--output-dir
  // cmp") as a run before naming the option; read_run_curves names a folder that is no run.
  app.add_option("runs", runs, "run directories (each with its metrics.csv)")->required();
  app.add_option("--out", out, "folder for the pictures and compare.csv")->capture_default_str();
  app.add_flag("--json", json, "print the tables (best scores, settings that differ) and the files written as JSON");
  dls::cli::add_version_flag(app, "compare_runs");
  if (const auto stop = dls::cli::parse_command_line(app, argc, argv)) return *stop;
  try {
    const auto warn = [](const std::string& line) { std::fprintf(stderr, "warning: %s\n", line.c_str()); };
    std::vector<std::string> repeats;
    std::vector<dls::train::RunCurves> curves;
    for (const auto& run : dls::train::distinct_run_dirs(runs, repeats)) {
      curves.push_back(dls::train::read_run_curves(run));
      for (const auto* line : {&curves.back().unreadable_fields, &curves.back().settings_warning}) {
        if (!line->empty()) warn(*line);
      }
    }
    for (const auto& repeat : repeats) warn(repeat);
    dls::train::name_runs_apart(curves);
    dls::util::create_folder(out, "--out");
    std::vector<std::string> written;
    for (const auto& picture : dls::train::comparison_pictures(curves)) {
      const auto path = (std::filesystem::path(out) / picture.file).string();
      picture.render().save_png(path);
      written.push_back(path);
    }
    for (const auto& stale : dls::train::remove_stale_pictures(out, written))
      warn("removed " + stale + ", an earlier comparison's");
    const auto csv = (std::filesystem::path(out) / "compare.csv").string();
    dls::util::write_text_atomically(csv, dls::train::comparison_csv(curves));
    written.push_back(csv);
    if (json) {
      std::cout << dls::train::comparison_json(curves, written) << std::endl;
      return dls::cli::status_after_standard_output(0);
    }
    std::cout << "Best scores\n"
              << dls::train::best_scores_table(curves) << "\nSettings that differ\n"
              << dls::train::settings_differences(curves) << "\nWritten:";
    for (const auto& file : written) std::cout << " " << file;
    std::cout << std::endl;
    return dls::cli::status_after_standard_output(0);
  } catch (const std::exception& error) {
    return dls::cli::print_error_line(error);
  }
}

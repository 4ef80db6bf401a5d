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
#include "dls/util/json.h"
#include "dls/util/create_folder.h"

int main(int argc, char** argv) {
  CLI::App app{
      "Compare training runs: validation scores and training loss against epoch, step and wall time\n"
      "(compare_METRIC.png, one per metric), the best scores, the settings that differ, and\n"
      "compare.csv with every metrics row of every run, written into --out."};
  std::vector<std::string> runs;
  std::string out = "compare";
  bool json = false;
  app.add_option("runs", runs, "run directories (each with its metrics.csv)")
      ->required()
      ->check(CLI::ExistingDirectory);
  app.add_option("--out", out, "folder for the pictures and compare.csv")->capture_default_str();
  app.add_flag("--json", json, "print the files written and the runs as JSON instead of the tables");
  dls::cli::add_version_flag(app, "compare_runs");
  if (const auto stop = dls::cli::parse_command_line(app, argc, argv)) return *stop;
  try {
    std::vector<dls::train::RunCurves> curves;
    for (const auto& run : runs) {
      curves.push_back(dls::train::read_run_curves(run));
      const auto& unreadable = curves.back().unreadable_fields;
      if (!unreadable.empty()) std::fprintf(stderr, "warning: %s\n", unreadable.c_str());
    }
    dls::util::create_folder(out, "--out");
    std::vector<std::string> written;
    for (const auto& picture : dls::train::comparison_pictures(curves)) {
      const auto path = (std::filesystem::path(out) / picture.file).string();
      picture.render().save_png(path);
      written.push_back(path);
    }
    const auto csv = (std::filesystem::path(out) / "compare.csv").string();
    dls::util::write_text_atomically(csv, dls::train::comparison_csv(curves));
    written.push_back(csv);
    if (json) {
      dls::util::JsonWriter writer;
      writer.begin_object().key("runs").begin_array();
      for (const auto& run : curves) writer.value(run.dir);
      writer.end_array().key("files").begin_array();
      for (const auto& file : written) writer.value(file);
      writer.end_array().end_object();
      std::cout << writer.str() << std::endl;
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

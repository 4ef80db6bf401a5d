// End-to-end tests run the built programs as a user would: a shell command line, stdin from
// a file, stdout and stderr captured, the exit status.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "dls/util/file_io.h"
#include "support/test_paths.h"
#include "util/temp_files.h"

namespace dls::test {

struct ProgramRun {
  int status = -1;  // exit status; -1 when the program did not exit normally
  std::string out, err;
};

// How run_program gives the program `input`: a file (`program <file`) or a pipe (`cat file |
// program`), whose bytes can be read only once.
enum class Stdin { kFile, kPipe };

// Runs `program` (a path below the build folder, e.g. "apps/vit_train") with `args`, its
// stdin read from `input`; `name` names the temporary folder of its output files.
// `env` (e.g. "DLS_LOG_LEVEL=info ") is put before the command.
inline ProgramRun run_program(const std::string& program, const std::string& args, const std::string& name,
                              const std::string& input = "", const std::string& env = "",
                              Stdin stdin_kind = Stdin::kFile) {
  const auto dir = fresh_temp_dir(name + "_io");
  const auto in = dir / "stdin", out = dir / "stdout", err = dir / "stderr";
  write_bytes(in, input);
  const std::string command_line = env + testing::binary_dir() + "/" + program + " " + args;
  const std::string command = (stdin_kind == Stdin::kPipe ? "cat " + in.string() + " | (" + command_line + ")"
                                                          : command_line + " <" + in.string()) +
                              " >" + out.string() + " 2>" + err.string();
  ProgramRun run;
  const int raw = std::system(command.c_str());
  run.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  run.out = util::read_file(out.string());
  run.err = util::read_file(err.string());
  return run;
}

// For run_program's `env`: run the program from `folder` (a path without a single quote).
inline std::string in_folder(const std::string& folder) { return "cd '" + folder + "' && "; }

// The first `columns` columns of every line of a CSV text (e.g. metrics.csv's kind, epoch,
// step and loss, which a repeated run reproduces, unlike its timings).
inline std::string first_csv_columns(const std::string& csv, int columns) {
  std::istringstream lines(csv);
  std::string kept;
  for (std::string line; std::getline(lines, line);) {
    std::size_t cut = 0;
    for (int i = 0; i < columns && cut != std::string::npos; ++i) cut = line.find(',', cut + (i > 0 ? 1 : 0));
    kept += line.substr(0, cut) + "\n";
  }
  return kept;
}

// A run's metrics.csv, but for its timings: what repeating the run reproduces.
inline std::string metrics_losses(const std::filesystem::path& run_dir) {
  return first_csv_columns(util::read_file((run_dir / "metrics.csv").string()), 4);
}

// `program --config RUN/config.toml --run-dir b`, run from the folder `elsewhere`, repeats
// `run`: the same losses, in elsewhere/b.
inline void expect_config_repeats_run(const std::string& program, const std::filesystem::path& run,
                                      const std::filesystem::path& elsewhere, const std::string& name) {
  const auto again = run_program(program, "--threads 1 --config '" + (run / "config.toml").string() + "' --run-dir b",
                                 name, "", in_folder(elsewhere.string()));
  ASSERT_EQ(again.status, 0) << again.err;
  EXPECT_EQ(metrics_losses(elsewhere / "b"), metrics_losses(run));
}

// The lines of a text, without their newlines.
inline std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

inline std::size_t count_lines(const std::string& text) {
  std::size_t n = 0;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) ++n;
  return n;
}

// For expect_one_line_error: any non-zero exit status.
inline constexpr int kAnyFailure = -1;

// The program failed with `status` and said why in one line "error: ...", naming `part`.
inline void expect_one_line_error(const ProgramRun& run, const std::string& part, int status = 1) {
  if (status == kAnyFailure) {
    EXPECT_NE(run.status, 0);
  } else {
    EXPECT_EQ(run.status, status);
  }
  EXPECT_EQ(count_lines(run.err), 1u) << run.err;
  EXPECT_EQ(run.err.rfind("error: ", 0), 0u) << run.err;
  EXPECT_NE(run.err.find(part), std::string::npos) << run.err;
}

// A report over several checkpoints run at --log-level info shows its progress, as every kind's
// does: a line "FILE: <score> ..." per checkpoint in `files` as it is evaluated, in order, then
// the bar's last line ("evaluating  N/N  100.0% ...") once it is done.
inline void expect_progress_per_checkpoint(const ProgramRun& report, const std::vector<std::string>& files,
                                           const std::string& score) {
  std::size_t at = 0;
  for (const auto& file : files) {
    at = report.err.find("info " + file + ": " + score, at);
    ASSERT_NE(at, std::string::npos) << file << ": " << score << "\n" << report.err;
  }
  const auto n = std::to_string(files.size());
  EXPECT_NE(report.err.find("evaluating  " + n + "/" + n + "  100.0%", at), std::string::npos) << report.err;
}

// Each of `flags` ("--flag value"), given to a resume (`run(args, name)` with `resume_args`
// before it), is refused in one line as fixed by the checkpoint.
template <typename Run>
void expect_fixed_on_resume(const Run& run, const std::string& resume_args, const std::vector<std::string>& flags) {
  for (const auto& flag : flags) {
    expect_one_line_error(run(resume_args + " " + flag, "fixed_flag"),
                          flag.substr(0, flag.find(' ')) + ": fixed by the checkpoint when resuming");
  }
}

}  // namespace dls::test

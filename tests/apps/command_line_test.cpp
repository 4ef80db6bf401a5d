// cli/command_line.h and every program's command line: usage errors are one line with exit
// status 1 (as --help says) and name the option or config key meant; --version; --dry-run.
#include "dls/cli/command_line.h"
#include "dls/cli/config_file.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "dls/util/file_io.h"
#include "support/program_run.h"
#include "support/test_paths.h"
#include "support/vit_runs.h"
#include "util/temp_files.h"

namespace dls {
namespace {

namespace fs = std::filesystem;

const char* const kPrograms[] = {"seq2seq_train", "vit_train", "lm_train", "checkpoint_eval"};

TEST(CommandLine, SuggestsTheClosestOption) {
  CLI::App app;
  int epochs = 0, heads = 0;
  app.add_option("--epochs", epochs);
  app.add_option("--heads", heads);
  app.add_option("--embedding-size", heads);
  EXPECT_EQ(cli::closest_option(app, "epoch"), "epochs");
  EXPECT_EQ(cli::closest_option(app, "ephocs"), "epochs");
  EXPECT_EQ(cli::closest_option(app, "embedding"), "embedding-size");  // a prefix
  EXPECT_EQ(cli::closest_option(app, "hedas"), "heads");
  EXPECT_EQ(cli::closest_option(app, "tokenizer"), "");
}

// "--stem=" with nothing after '=' is refused in one line: CLI11 would read the next
// argument as its value. "--stem" followed by an empty argument, and "--", stay as they were.
TEST(CommandLine, AnOptionEndingInEqualsIsRefused) {
  const auto parse = [](std::vector<std::string> args, std::string* stem) {
    CLI::App app;
    std::vector<std::string> files;
    app.add_option("--stem", *stem);
    app.add_option("files", files);
    std::vector<char*> argv;
    for (auto& arg : args) argv.push_back(arg.data());
    ::testing::internal::CaptureStderr();
    const auto stop = cli::parse_command_line(app, static_cast<int>(argv.size()), argv.data());
    return std::make_pair(stop, ::testing::internal::GetCapturedStderr());
  };
  std::string stem = "unset";
  const auto [stop, err] = parse({"prog", "--stem=", "data.txt"}, &stem);
  EXPECT_EQ(stop, std::optional<int>(1));
  EXPECT_EQ(err, "error: --stem= has no value after '=': give --stem VALUE, or --stem \"\" for an empty one\n");
  EXPECT_EQ(stem, "unset");
  EXPECT_EQ(parse({"prog", "--stem", "", "data.txt"}, &stem).first, std::nullopt);
  EXPECT_EQ(stem, "");
  EXPECT_EQ(parse({"prog", "--stem=conv", "--", "--x="}, &stem).first, std::nullopt);
  EXPECT_EQ(stem, "conv");
}

// A --config file's unknown key or bad value is named with the file and its line: the
// flag alone pointed at a command line that never had it. A command-line value that wins
// over the file's is named as before.
TEST(CommandLine, ConfigFileErrorsNameTheFileAndLine) {
  const auto dir = test::fresh_temp_dir("cli_config_lines");
  const auto parse = [&](const std::string& text, std::vector<std::string> args) {
    test::write_bytes(dir / "run.toml", text);
    CLI::App app;
    int epochs = 1;
    app.add_option("--epochs", epochs);
    cli::add_config_option(app);
    args.insert(args.begin(), {"prog", "--config", (dir / "run.toml").string()});
    std::vector<char*> argv;
    for (auto& arg : args) argv.push_back(arg.data());
    ::testing::internal::CaptureStderr();
    cli::parse_command_line(app, static_cast<int>(argv.size()), argv.data());
    return ::testing::internal::GetCapturedStderr();
  };
  const auto file = "--config " + (dir / "run.toml").string();
  EXPECT_EQ(parse("# mine\nepochs = 2\n\nlearning-rate = 0.01\n", {}),
            "error: " + file + ":4: unknown key 'learning-rate'\n");
  const auto bad = parse("# mine\nepochs = 2.5\n", {});
  EXPECT_EQ(bad.rfind("error: " + file + ":2: ", 0), 0u) << bad;
  EXPECT_NE(bad.find("--epochs"), std::string::npos) << bad;
  const auto flag = parse("epochs = 2\n", {"--epochs", "x"});
  EXPECT_EQ(flag.find(file), std::string::npos) << "the command line's value is the one at fault: " << flag;
}

TEST(CommandLine, UsageErrorsAreOneLineWithStatusOne) {
  for (const std::string program : kPrograms) {
    SCOPED_TRACE(program);
    const auto misspelt = test::run_program("apps/" + program, "--log-levle debug", "cli_misspelt_" + program);
    test::expect_one_line_error(misspelt, "--log-levle -> --log-level", 1);
    EXPECT_NE(misspelt.err.find("unknown option"), std::string::npos) << misspelt.err;
    const auto bad_value = test::run_program("apps/" + program, "--log-level loud", "cli_value_" + program);
    test::expect_one_line_error(bad_value, "--log-level", 1);
    const auto stray = test::run_program("apps/" + program, "--threads 1 --threads=x", "cli_stray_" + program);
    test::expect_one_line_error(stray, "--threads", 1);
  }
}

TEST(CommandLine, MisspeltConfigKeysNameTheKeyMeant) {
  const auto dir = test::fresh_temp_dir("cli_config");
  const auto config = dir / "run.toml";
  test::write_bytes(config, "log-levle=\"warn\"\n");
  for (const std::string program : kPrograms) {
    SCOPED_TRACE(program);
    const auto run = test::run_program("apps/" + program, "--config " + config.string(), "cli_config_" + program);
    test::expect_one_line_error(
        run, "--config " + config.string() + ":1: unknown key 'log-levle'; did you mean 'log-level'?", 1);
  }
}

TEST(CommandLine, VersionAndHelp) {
  for (const std::string program : kPrograms) {
    SCOPED_TRACE(program);
    const auto version = test::run_program("apps/" + program, "--version", "cli_version_" + program);
    EXPECT_EQ(version.status, 0);
    EXPECT_EQ(version.out.rfind(program + " (dlstudio-cpp) " DLS_VERSION ", LibTorch ", 0), 0u) << version.out;
    const auto help = test::run_program("apps/" + program, "--help", "cli_help_" + program);
    EXPECT_EQ(help.status, 0);
    EXPECT_NE(help.out.find("1 error, usage errors included"), std::string::npos) << help.out;
    EXPECT_NE(help.out.find("--version"), std::string::npos);
  }
}

// Every training program checks its data and model and stops without touching the run
// directory.
TEST(CommandLine, DryRunEverywhere) {
  const auto dir = test::fresh_temp_dir("cli_dry_run");
  const std::string corpus = testing::sample_corpus();
  const auto fashion = test::tiny_fashion_dir("cli_dry_run_fashion");
  const std::pair<std::string, std::string> runs[] = {
      {"seq2seq_train", "--preset cpu --validation-pairs 150 --data " + corpus},
      {"lm_train", "--data " + corpus},
      {"vit_train", "--dataset fashion-mnist --data-dir " + fashion.string()},
  };
  for (const auto& [program, args] : runs) {
    SCOPED_TRACE(program);
    const auto run_dir = dir / program;
    const auto run =
        test::run_program("apps/" + program, "--threads 1 --dry-run --json --run-dir " + run_dir.string() + " " + args,
                          "cli_dry_" + program);
    EXPECT_EQ(run.status, 0) << run.err;
    EXPECT_NE(run.out.find("\"dry-run\""), std::string::npos) << run.out;
    EXPECT_NE(run.out.find("\"training_step\":\"none\""), std::string::npos) << "no step ran\n" << run.out;
    EXPECT_FALSE(fs::exists(run_dir)) << "a dry run made its run directory";
  }
}

}  // namespace
}  // namespace dls

// cli/declared_flags.h: the flags a settings declaration gives -- a value or a switch, a
// property, its range and values refused in one line, a path recorded absolute, config.toml
// listing every setting but the invocation's, and the resume check refusing a fixed one; a
// program's own options bound straight to their fields, per command.
#include "dls/cli/declared_flags.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "dls/cli/command_line.h"

namespace dls {
namespace declared_flags_test {
namespace {

using util::Setting;

struct Inner {
  double rate = 0.5;
  template <typename Fields>
  static void declare(Inner& s, Fields& f) {
    f(s.rate, Setting("rate", "--rate", "a rate").range(0, 1));
  }
};

struct Sample {
  int heads = 4;
  bool buckets = false;
  bool masking = true;
  std::string corpus;
  std::string device = "cpu";
  int accum = 1;
  Inner inner;

  template <typename Fields>
  static void declare(Sample& s, Fields& f) {
    f(s.heads, Setting("heads", "--heads", "heads").range(1, 64).fixed());
    f(s.buckets, Setting("buckets", "--buckets", "length buckets").as_switch());
    f.property(
        Setting("", "--no-masking", "masking off").as_switch().fixed(), [&] { return !s.masking; },
        [&](bool off) { s.masking = !off; });
    f.group("Data");
    f(s.corpus, Setting("corpus", "--corpus", "a file").as_path());
    f(s.device, Setting("device", "--device", "where").one_of({"cpu", "cuda"}));
    f(s.accum, Setting("", "--accum", "micro-batches").range(1, 8).invocation());
    f.section("inner", [&] { Inner::declare(s.inner, f); });
  }
};

struct Parsed {
  Sample settings;
  std::string config_toml;
  std::vector<std::string> fixed;
  std::string error;  // the usage error's line; "" when parsed
  std::string heads_group, corpus_group;
};

// Parses `args` after the program's name; returns the usage error's line, "" when parsed.
std::string parse_error(CLI::App& app, std::vector<std::string> args) {
  args.insert(args.begin(), "test");
  std::vector<char*> argv;
  for (auto& arg : args) argv.push_back(arg.data());
  try {
    app.parse(static_cast<int>(argv.size()), argv.data());
  } catch (const CLI::Error& error) {
    return cli::usage_error_line(app, error);
  }
  return "";
}

Parsed parse(std::vector<std::string> args) {
  CLI::App app{"test"};
  cli::Overrides<Sample> overrides;
  cli::add_declared_flags(app, overrides, "Model");
  Parsed parsed;
  parsed.error = parse_error(app, std::move(args));
  if (!parsed.error.empty()) return parsed;
  cli::apply_overrides(overrides, parsed.settings);
  parsed.config_toml = cli::resolved_config(overrides, parsed.settings, "test");
  parsed.fixed = overrides.fixed;
  parsed.heads_group = app.get_option("--heads")->get_group();
  parsed.corpus_group = app.get_option("--corpus")->get_group();
  return parsed;
}

TEST(DeclaredFlags, EachFlagChangesItsField) {
  const auto parsed = parse({"--heads", "8", "--buckets", "--no-masking", "--device", "cuda", "--accum", "2", "--rate",
                             "0.25", "--corpus", "some/file.txt"});
  ASSERT_EQ(parsed.error, "");
  EXPECT_EQ(parsed.settings.heads, 8);
  EXPECT_TRUE(parsed.settings.buckets);
  EXPECT_FALSE(parsed.settings.masking);
  EXPECT_EQ(parsed.settings.device, "cuda");
  EXPECT_EQ(parsed.settings.accum, 2);
  EXPECT_EQ(parsed.settings.inner.rate, 0.25);
  EXPECT_EQ(parsed.settings.corpus, (std::filesystem::current_path() / "some/file.txt").string());
  const auto untouched = parse({});
  EXPECT_EQ(untouched.settings.heads, 4);
  EXPECT_TRUE(untouched.settings.masking);
  EXPECT_EQ(parsed.heads_group, "Model");
  EXPECT_EQ(parsed.corpus_group, "Data");
}

TEST(DeclaredFlags, OutOfRangeAndUnknownValuesAreOneLine) {
  EXPECT_NE(parse({"--heads", "65"}).error.find("65 is outside [1, 64]"), std::string::npos);
  EXPECT_NE(parse({"--rate", "nan"}).error.find("nan"), std::string::npos);
  EXPECT_NE(parse({"--device", "tpu"}).error.find("tpu"), std::string::npos);
  EXPECT_EQ(parse({"--device", "tpu"}).error.find('\n'), std::string::npos);
}

TEST(DeclaredFlags, ConfigTomlListsEverySettingButTheInvocations) {
  const auto parsed = parse({"--no-masking", "--heads", "2"});
  const std::string expected_settings =
      "heads=2\nbuckets=false\nno-masking=true\ncorpus=\"\"\ndevice=\"cpu\"\nrate=0.5\n";
  EXPECT_NE(parsed.config_toml.find(expected_settings), std::string::npos) << parsed.config_toml;
  EXPECT_EQ(parsed.config_toml.find("accum"), std::string::npos);  // how this invocation runs
}

TEST(DeclaredFlags, TheFixedSettingsAreTheDeclaredOnes) {
  EXPECT_EQ(parse({}).fixed, (std::vector<std::string>{"--heads", "--no-masking"}));
}

TEST(DeclaredFlags, AResumeRefusesAFixedSettingAndTakesAnother) {
  CLI::App app{"test"};
  cli::Overrides<Sample> overrides;
  cli::add_declared_flags(app, overrides, "Model");
  ASSERT_EQ(parse_error(app, {"--heads", "8", "--device", "cuda"}), "");
  const Sample resumed;
  Sample asked = resumed;
  cli::apply_overrides(overrides, asked);
  try {
    cli::check_fixed_on_resume(app, overrides, resumed, asked);
    ADD_FAILURE() << "--heads was not refused";
  } catch (const std::runtime_error& error) {
    EXPECT_STREQ(error.what(), "--heads: fixed by the checkpoint when resuming (the run has 4, asked 8)");
  }
}

// A program's options, as translate_server's and checkpoint_eval's declare theirs: command 0
// takes every flag, command 1 a positional that it requires and one flag.
struct Options {
  std::string path;
  int beam = 0;  // 0: not asked (outside the flag's range, so no default is shown)
  double penalty = 0.5;
  std::vector<std::string> refs;
  bool json = false;
  template <typename Fields>
  static void declare(Options& o, Fields& f) {
    f(o.path, Setting("", "RUN", "a run").only_in(2).required(2));
    f.group("Decoding");
    f(o.beam, Setting("", "--beam", "beams").range(1, 64).only_in(1));
    f(o.penalty, Setting("", "--penalty", "a penalty").range(0, 10).only_in(1));
    f(o.refs, Setting("", "--ref", "references").only_in(1 | 2));
    f(o.json, Setting("", "--json", "JSON").in_group("Output"));
  }
};

struct ParsedOptions {
  Options options;
  std::string error, help;
};

ParsedOptions parse_options(std::uint32_t command, std::vector<std::string> args) {
  CLI::App app{"test"};
  ParsedOptions parsed;
  cli::add_option_flags(app, parsed.options, command, "Options");
  parsed.help = app.help();
  parsed.error = parse_error(app, std::move(args));
  return parsed;
}

TEST(DeclaredOptions, EachCommandTakesItsFlagsWrittenStraightIntoTheFields) {
  const auto first = parse_options(1, {"--beam", "4", "--penalty", "2", "--ref", "a", "--ref", "b", "--json"});
  ASSERT_EQ(first.error, "");
  EXPECT_EQ(first.options.beam, 4);
  EXPECT_EQ(first.options.penalty, 2);
  EXPECT_EQ(first.options.refs, (std::vector<std::string>{"a", "b"}));
  EXPECT_TRUE(first.options.json);
  const auto second = parse_options(2, {"runs/x", "--ref", "a"});
  ASSERT_EQ(second.error, "");
  EXPECT_EQ(second.options.path, "runs/x");
  EXPECT_EQ(second.options.beam, 0);
  EXPECT_NE(parse_options(2, {"runs/x", "--beam", "4"}).error.find("--beam"), std::string::npos);
  EXPECT_NE(parse_options(2, {}).error.find("RUN is required"), std::string::npos);
  EXPECT_NE(parse_options(1, {"--beam", "65"}).error.find("65 is outside [1, 64]"), std::string::npos);
}

TEST(DeclaredOptions, HelpShowsGroupsAndTheDefaultsAFlagAccepts) {
  const auto help = parse_options(1, {}).help;
  EXPECT_NE(help.find("Decoding:"), std::string::npos) << help;
  EXPECT_NE(help.find("Output:"), std::string::npos) << help;
  EXPECT_NE(help.find("--penalty FLOAT=0.5"), std::string::npos) << help;
  EXPECT_EQ(help.find("--beam INT="), std::string::npos) << help;  // 0 is "not asked", not a value it takes
}

}  // namespace
}  // namespace declared_flags_test
}  // namespace dls

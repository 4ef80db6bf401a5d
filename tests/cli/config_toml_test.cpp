// cli/config_toml.h: what config.toml writes reads back byte for byte (paths with '#',
// quotes, backslashes, spaces, UTF-8), numbers read back exactly, and a malformed file is
// refused with one line naming the file and the line. CLI11's own reader, which it replaces,
// cuts a quoted value at '#'.
#include "dls/cli/config_toml.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "dls/cli/config_file.h"
#include "support/error_of.h"

namespace dls {
namespace {

std::vector<CLI::ConfigItem> parse_toml_text(const std::string& text) {
  std::istringstream in(text);
  return cli::parse_config_toml(in, "f.toml");
}

// The message parse_config_toml refuses `text` with ("" when it is accepted).
std::string toml_refusal(const std::string& text) {
  return test::error_of<CLI::ConfigError>([&] { parse_toml_text(text); });
}

TEST(ConfigToml, StringsReadBackAsWritten) {
  for (const std::string& text : std::vector<std::string>{
           "", "plain", "/data/run #1/corpus.tsv", "a \"quoted\" name", "it's", "C:\\corpora\\spa.txt", "two  spaces ",
           "ñandú/日本語/😀", "tab\there", "line\nbreak", "\x01\x1f\x7f", "[not, an array]", "= # ' \" \\\\ \\n"}) {
    const auto items = parse_toml_text("data = " + cli::toml_value(text) + "  # a comment\n");
    ASSERT_EQ(items.size(), 1u) << text;
    EXPECT_EQ(items[0].name, "data");
    ASSERT_EQ(items[0].inputs.size(), 1u) << text;
    EXPECT_EQ(items[0].inputs[0], text);
  }
}

TEST(ConfigToml, NumbersReadBackExactly) {
  for (const double value : {1e-4, 0.1, 3e-3, 1.0 / 3, 1e300, 5e-324, 0.0, 40.0, 0.999999, 1e-12}) {
    const auto text = cli::toml_value(value);
    EXPECT_EQ(std::strtod(parse_toml_text("lr=" + text)[0].inputs[0].c_str(), nullptr), value) << text;
  }
  EXPECT_EQ(cli::toml_value(1e-4), "0.0001");
  EXPECT_EQ(cli::toml_value(std::numeric_limits<std::uint64_t>::max()), "18446744073709551615");
  EXPECT_EQ(cli::toml_value(std::int64_t{-3}), "-3");
  EXPECT_EQ(cli::toml_value(true), "true");
}

// Why the programs do not use CLI11's reader: Debian 12's (2.1.2) keeps "a of "a#b". Newer
// CLI11 (Debian 13's) reads it right; the project's reader does everywhere.
TEST(ConfigToml, Cli11sReaderCutsAQuotedValueAtAHash) {
  EXPECT_EQ(parse_toml_text("data=\"a#b\"\n")[0].inputs.at(0), "a#b");
  std::istringstream in("data=\"a#b\"\n");
  const auto items = CLI::ConfigBase().from_config(in);
  ASSERT_EQ(items.size(), 1u);
  if (items[0].inputs.at(0) == "a#b") GTEST_SKIP() << "this CLI11 (" CLI11_VERSION ") reads \"a#b\" right";
  EXPECT_EQ(items[0].inputs.at(0), "\"a") << "the defect this project's reader avoids";
}

TEST(ConfigToml, ReadsWhatCli11Wrote) {
  // An older config.toml: CLI11 quoted a string holding '"' with '...', and listed threads,
  // json and log-level.
  const auto items = parse_toml_text(
      "# The options of this run.\r\n\r\nthreads=1\r\njson=false\nlog-level=\"warn\"\npreset=\"cpu\"\n"
      "data='say \"hi\".tsv'\nlr=0.003\nepochs = [1, 2,\n  3]  # three\n\nempty=[]\n");
  ASSERT_EQ(items.size(), 8u);
  EXPECT_EQ(items[0].name, "threads");
  EXPECT_EQ(items[0].inputs, std::vector<std::string>{"1"});
  EXPECT_EQ(items[1].inputs, std::vector<std::string>{"false"});
  EXPECT_EQ(items[2].inputs, std::vector<std::string>{"warn"});
  EXPECT_EQ(items[4].inputs, std::vector<std::string>{"say \"hi\".tsv"});
  EXPECT_EQ(items[5].inputs, std::vector<std::string>{"0.003"});
  EXPECT_EQ(items[6].inputs, (std::vector<std::string>{"1", "2", "3"}));
  EXPECT_TRUE(items[7].inputs.empty());
}

TEST(ConfigToml, MalformedFilesAreRefusedNamingTheLine) {
  const std::vector<std::pair<std::string, std::string>> cases{
      {"epochs=[12", "f.toml:1: unterminated array"},
      {"# settings\nepochs=[12\nlr=0.1\n", "f.toml:2: unterminated array"},
      {"a=1\ndata=\"abc\nlr=1\n", "f.toml:2: unterminated string"},
      {"data='abc\n", "f.toml:1: unterminated string"},
      {"a=1\n\nlr=0.1 0.2\n", "f.toml:3: unexpected text after the value of 'lr'"},
      {"lr\n", "f.toml:1: expected '=' after 'lr'"},
      {"lr=\n", "f.toml:1: expected a value"},
      {"data=/unquoted/path\n", "f.toml:1: expected a value"},
      {"lr=1\nlr=2\n", "f.toml:2: 'lr' is given twice (first on line 1)"},
      {"[section]\n", "f.toml:1: sections"},
      {"data=\"C:\\x\"\n", "f.toml:1: unknown escape \\x"},
      {"data=\"\\u12\"\n", "f.toml:1: bad \\u escape"},
      {"a=1\ndata=\"/x.tsv\\u0000junk\"\n", "f.toml:2: 'data' holds a NUL character (\\u0000)"},
      {"a=[[1]]\n", "f.toml:1: nested arrays"},
      {"a=[1 2]\n", "f.toml:1: expected ',' or ']'"},
      {"=1\n", "f.toml:1: expected an option name"},
      // What TOML refuses is refused, not read as something else.
      {"a=1\nattention-score = general\n", "f.toml:2: 'general' is not a value: a string is written in double quotes"},
      {"length-buckets = True\n", "f.toml:1: 'True': true and false are written in lowercase"},
      {"--max-words = 5\n", "f.toml:1: '--max-words': a key is the flag's name without its dashes ('max-words')"},
      {"data = \"\"\"x\"\"\"\n", "f.toml:1: multi-line strings are not read here"},
      {std::string("a=1\nb=2\0\n", 9), "f.toml:2: a NUL byte: not a text file"},
      {"\"\" = 1\n", "f.toml:1: an empty key"},
      {"epochs = 010\n", "f.toml:1: '010': a number with a leading zero"},
      {"epochs = 0o17\n", "f.toml:1: '0o17': write the number in decimal"},
  };
  for (const auto& [text, message] : cases) {
    const auto refusal = toml_refusal(text);
    EXPECT_EQ(refusal.rfind(message, 0), 0u) << text << " -> " << refusal;
    EXPECT_EQ(refusal.find('\n'), std::string::npos) << refusal;
  }
}

// What TOML allows and a config file may hold: a byte-order mark, quoted keys, digits grouped
// with '_'; and a path whose bytes are not UTF-8 (Linux allows them), which config.toml writes.
TEST(ConfigToml, ReadsTomlsOtherSpellings) {
  const auto items = parse_toml_text(
      "\xEF\xBB\xBF\"epochs\" = 1_000\n'lr' = 1e-3\nseed = -2\nflip = true\ndata = \"lat\xe9n/x.tsv\"\n");
  ASSERT_EQ(items.size(), 5u);
  EXPECT_EQ(items[4].inputs, std::vector<std::string>{"lat\xe9n/x.tsv"}) << "a Latin-1 path, as config.toml writes it";
  EXPECT_EQ(items[0].name, "epochs");
  EXPECT_EQ(items[0].inputs, std::vector<std::string>{"1000"});
  EXPECT_EQ(items[1].name, "lr");
  EXPECT_EQ(items[1].inputs, std::vector<std::string>{"1e-3"});
  EXPECT_EQ(items[2].inputs, std::vector<std::string>{"-2"});
  EXPECT_EQ(items[3].inputs, std::vector<std::string>{"true"});
}

// Through CLI11: the file's values reach the options, the command line wins, and the reader
// knows which options the file gave.
TEST(ConfigToml, TheCommandLineWinsAndTheFileSaysWhatItGave) {
  CLI::App app{"config_toml_test"};
  std::string data, run_dir;
  int threads = 0;
  app.add_option("--data", data);
  app.add_option("--run-dir", run_dir);
  app.add_option("--threads", threads);
  cli::add_config_option(app);
  std::istringstream file("data = \"/x/run #2/ñ.tsv\"\nrun-dir = \"from-file\"\nthreads = 3\n");
  // parse_from_stream reads no --config option: the file is the one read.
  app.parse("--run-dir from-command-line", false);
  EXPECT_EQ(run_dir, "from-command-line");
  const auto items = app.get_config_formatter()->from_config(file);
  EXPECT_TRUE(cli::from_config_file(app, "--data"));
  EXPECT_TRUE(cli::from_config_file(app, "--threads"));
  EXPECT_FALSE(cli::from_config_file(app, "--run-dir"));
  EXPECT_EQ(items.at(0).inputs.at(0), "/x/run #2/ñ.tsv");
}

}  // namespace
}  // namespace dls

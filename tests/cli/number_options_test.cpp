// cli/number_options.h: numbers are decimal on every numeric option, ranged or not, in
// subcommands too (CLI11 read 010 as 8 and 0x10 as 16); a config file's quoted value is
// refused for an option that takes a number or a switch (epochs = "3"), named by its line.
#include "dls/cli/number_options.h"

#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "dls/cli/command_line.h"
#include "dls/cli/config_file.h"
#include "dls/cli/overrides.h"
#include "support/test_paths.h"
#include "util/temp_files.h"

namespace dls {
namespace {

// A program's options: numbers without a range and with one, text, a switch, a subcommand.
struct Program {
  CLI::App app{"number_options_test"};
  int count = 0;
  double rate = 0;
  unsigned port = 0;
  std::string name;
  bool verbose = false;
  CLI::App* sub = nullptr;
  int sub_count = 0;

  Program() {
    app.add_option("--count", count);
    app.add_option("--rate", rate)->check(cli::in_range(0, 10));
    app.add_option("--port", port);
    app.add_option("--name", name);
    app.add_flag("--verbose", verbose);
    sub = app.add_subcommand("sub");
    sub->add_option("--sub-count", sub_count);
    cli::add_config_option(app);
    cli::require_decimal_numbers(app);
  }
  // The parse error's message; "" when the arguments are accepted.
  std::string error_of(const std::string& arguments) {
    try {
      app.parse(arguments, false);
    } catch (const CLI::ParseError& error) {
      return error.what();
    }
    return "";
  }
};

TEST(NumberOptions, NonDecimalSpellingsAreRefusedOnEveryNumericOption) {
  for (const std::string arguments : {"--count 010", "--count 0x10", "--port 0b11", "--port 0o17", "--rate 01.5",
                                      "--count -010", "sub --sub-count 07"}) {
    const auto error = Program().error_of(arguments);
    EXPECT_NE(error.find(arguments.substr(arguments.rfind(' ') + 1)), std::string::npos) << arguments << ": " << error;
    EXPECT_TRUE(error.find("leading zero") != std::string::npos || error.find("decimal") != std::string::npos)
        << arguments << ": " << error;
  }
  Program program;
  EXPECT_EQ(program.error_of("--count 10 --port 0 --rate 0.5 --name 010 sub --sub-count 7"), "");
  EXPECT_EQ(program.count, 10);
  EXPECT_EQ(program.port, 0u);
  EXPECT_EQ(program.rate, 0.5);
  EXPECT_EQ(program.name, "010") << "text is not a number";
  EXPECT_EQ(program.sub_count, 7);
  for (const std::string number : {"0", "-0", "0.25", "0e0", "1e-05", "+3"})
    EXPECT_EQ(cli::not_decimal(number), "") << number;
}

TEST(NumberOptions, AConfigFilesQuotedNumberOrSwitchIsRefusedByItsLine) {
  const auto dir = test::fresh_temp_dir("number_options_config");
  const auto parse_file = [&](const std::string& text) {
    std::ofstream((dir / "c.toml").string()) << text;
    return Program().error_of("--config " + (dir / "c.toml").string());
  };
  EXPECT_EQ(parse_file("count = 3\nname = \"x\"\nverbose = true\n"), "");
  EXPECT_EQ(parse_file("name = 3\n"), "") << "a bare number is the text it spells";
  for (const auto& [text, line] : {std::pair<std::string, int>{"count = \"3\"\n", 1},
                                   {"name = \"x\"\nrate = '0.5'\n", 2},
                                   {"verbose = \"true\"\n", 1}}) {
    const auto error = parse_file(text);
    EXPECT_NE(error.find("c.toml:" + std::to_string(line) + ": '"), std::string::npos) << text << ": " << error;
    EXPECT_NE(error.find("without quotes"), std::string::npos) << text << ": " << error;
  }
  EXPECT_NE(parse_file("count = 010\n").find("leading zero"), std::string::npos);
}

}  // namespace
}  // namespace dls

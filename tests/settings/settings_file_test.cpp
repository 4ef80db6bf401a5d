// settings/settings_file.h: a TOML file sets declared fields by their flags' names, checked
// as the flags check them (range, values, any case), and refuses in one line naming the file
// and the line: an unknown name, a value of the wrong kind, one out of range, an array, a
// setting of the invocation alone. A name the caller takes (`other`) is handed to it.
#include "dls/settings/settings_file.h"
#include "support/error_of.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>

namespace dls {
namespace settings_file_test {
namespace {

using util::Setting;

struct Sample {
  std::int64_t batch = 8;
  double lr = 0.1;
  bool flip = false;
  std::string schedule = "constant", layout = "dlstudio", backend = "gloo";
  int inverted = 1;  // held as a property: the file's "off" switch turns it to 0

  template <typename Fields>
  static void declare(Sample& s, Fields& f) {
    f.section("training", [&] {
      f(s.batch, Setting("batch", "--batch-size", "").range(1, 1000));
      f(s.lr, Setting("lr", "--lr", "").range(1e-9, 10));
    });
    f(s.flip, Setting("flip", "--flip", "").as_switch());
    f(s.schedule, Setting("schedule", "--schedule", "").one_of({"constant", "cosine"}));
    f.property(
        Setting("", "--layout", "").one_of({"dlstudio", "vaswani"}).in_any_case(), [&] { return s.layout; },
        [&](const std::string& name) {
          if (name == "dlstudio" || name == "vaswani") {
            s.layout = name;
          } else {
            throw std::invalid_argument("unknown layout '" + name + "'");
          }
        });
    f.property(
        Setting("", "--off", "").as_switch(), [&] { return s.inverted == 0; },
        [&](bool off) { s.inverted = off ? 0 : 1; });
    f(s.backend, Setting("", "--dist-backend", "").invocation());
  }
};

Sample read(const std::string& text, const settings::OtherSetting& other = {}) {
  Sample s;
  settings::read_settings_file(util::parse_toml_subset(text, "my.toml"), "my.toml", s, other);
  return s;
}

std::string refusal(const std::string& text) {
  return test::error_of<std::runtime_error>([&] { read(text); });
}

TEST(SettingsFile, SetsEachFieldByItsFlagsName) {
  const auto s = read(
      "# a preset\nbatch-size = 64\nlr = 3e-4\nflip = true\nschedule = \"cosine\"\n"
      "layout = \"Vaswani\"\noff = true\n");
  EXPECT_EQ(s.batch, 64);
  EXPECT_EQ(s.lr, 3e-4);
  EXPECT_TRUE(s.flip);
  EXPECT_EQ(s.schedule, "cosine");
  EXPECT_EQ(s.layout, "vaswani") << "any case reads as the value's own spelling";
  EXPECT_EQ(s.inverted, 0);
  const auto untouched = read("");
  EXPECT_EQ(untouched.batch, 8);
  EXPECT_EQ(untouched.layout, "dlstudio");
}

TEST(SettingsFile, RefusesInOneLineNamingTheFileAndLine) {
  EXPECT_EQ(refusal("batch-size = 64\nbatch = 3\n"),
            "my.toml:2: 'batch' is not a setting of this program (the names are the flags' without --); did you mean "
            "'batch-size'?");
  EXPECT_EQ(refusal("zzz = 3\n"),
            "my.toml:1: 'zzz' is not a setting of this program (the names are the flags' without --)");
  const std::pair<const char*, const char*> values_and_refusals[] = {
      {"\nbatch-size = 0\n", "my.toml:2: batch-size: 0 is not in [1, 1000]"},
      {"batch-size = 2.5", "my.toml:1: batch-size: '2.5' is not a whole number in range"},
      {"lr = \"fast\"", "my.toml:1: lr: 'fast' is not a number"},
      {"flip = 1", "my.toml:1: flip: '1' is not true or false"},
      {"schedule = \"linear\"", "my.toml:1: schedule: 'linear' is not one of constant, cosine"},
      {"lr = [1, 2]", "my.toml:1: lr: expected one value, not an array"},
      {"batch-size = \"64\"", "my.toml:1: batch-size: \"64\" is a string; a number is written without quotes"},
      {"flip = 'true'", "my.toml:1: flip: \"true\" is a string; true and false are written without quotes"},
  };
  for (const auto& [text, message] : values_and_refusals) EXPECT_EQ(refusal(text), message) << text;
  EXPECT_NE(refusal("dist-backend = \"nccl\"").find("'dist-backend' is not a setting"), std::string::npos)
      << "the invocation's settings are no file's";
  EXPECT_EQ(refusal("lr = "), "my.toml:1: expected a value: a number, true, false, a \"string\" or an [array]");
}

TEST(SettingsFile, HandsTheCallersOwnNamesToIt) {
  std::string dataset;
  const auto s = read("dataset = \"cifar10\"\nbatch-size = 4\n", [&](const util::TomlItem& item) {
    if (item.name != "dataset") return false;
    dataset = item.values.front();
    return true;
  });
  EXPECT_EQ(dataset, "cifar10");
  EXPECT_EQ(s.batch, 4);
  EXPECT_THROW(read("colour = 1", [](const util::TomlItem&) { return false; }), std::runtime_error);
}

}  // namespace
}  // namespace settings_file_test
}  // namespace dls

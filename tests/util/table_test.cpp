#include "dls/util/table.h"

#include <gtest/gtest.h>

#include <sstream>

#include "dls/util/utf8.h"

namespace dls::util {
namespace {

TEST(Table, AlignsAccentedWordsByDisplayWidth) {
  Table table({"palabra", "n"}, {Align::kLeft, Align::kRight});
  table.add_row({"canción", "7"}).add_row({"ñu", "12"}).add_separator().add_row({"total", "19"});
  EXPECT_EQ(table.rows(), 4u);
  EXPECT_EQ(table.to_string(),
            "+---------+----+\n"
            "| palabra |  n |\n"
            "+---------+----+\n"
            "| canción |  7 |\n"
            "| ñu      | 12 |\n"
            "+---------+----+\n"
            "| total   | 19 |\n"
            "+---------+----+\n");
}

TEST(Table, EveryLineHasTheSameWidth) {
  Table table({"English", "Español", "BLEU"}, {Align::kLeft, Align::kLeft, Align::kRight});
  table.add_row({"where is the station?", "¿dónde está la estación?", "41.2"});
  table.add_row({"two\nlines", "señor", "7.0"});
  std::istringstream lines(table.to_string());
  int width = -1, count = 0;
  for (std::string line; std::getline(lines, line); ++count) {
    if (width < 0) width = display_width(line);
    EXPECT_EQ(display_width(line), width) << line;
  }
  EXPECT_EQ(count, 6);
  EXPECT_NE(table.to_string().find("two lines"), std::string::npos);
}

TEST(Table, HeaderOnlyAndBadRows) {
  Table table({"a"});
  EXPECT_EQ(table.to_string(), "+---+\n| a |\n+---+\n");
  EXPECT_THROW(table.add_row({"1", "2"}), std::invalid_argument);
  EXPECT_THROW(Table({}), std::invalid_argument);
}

}  // namespace
}  // namespace dls::util

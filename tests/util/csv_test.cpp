#include "dls/util/csv.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <utility>

#include "dls/util/file_io.h"
#include "util/temp_files.h"

namespace dls::util {
namespace {

namespace fs = std::filesystem;

std::string temp_file(const std::string& name) {
  const fs::path dir = test::process_temp_path("csv");
  fs::create_directories(dir);
  const fs::path path = dir / name;
  fs::remove(path);
  return path.string();
}

TEST(Csv, QuotesOnlyWhenNeeded) {
  const std::pair<const char*, const char*> fields_and_written[] = {
      {"2.345", "2.345"},
      {"", ""},
      {"a,b", "\"a,b\""},
      {"say \"hola\"", "\"say \"\"hola\"\"\""},
      {"two\nlines", "\"two\nlines\""},
      {" padded", "\" padded\""},
      {"¿qué?", "¿qué?"},
  };
  for (const auto& [field, written] : fields_and_written) EXPECT_EQ(csv_field(field), written) << field;
  EXPECT_EQ(csv_line({"1", "a,b", ""}), "1,\"a,b\",\n");
}

TEST(Csv, ParsingReadsBackWhatWasWritten) {
  const std::vector<std::string> fields = {"x", "", "a,b", "\"q\"", "l1\nl2", " s ", "ñ"};
  const std::string text = csv_line(fields) + "next\r\n" + "cut,\"open";
  std::size_t pos = 0;
  bool complete = false;
  EXPECT_EQ(parse_csv_record(text, &pos, &complete), fields);
  EXPECT_TRUE(complete);
  EXPECT_EQ(parse_csv_record(text, &pos, &complete), std::vector<std::string>{"next"});
  EXPECT_TRUE(complete);
  EXPECT_EQ(parse_csv_record(text, &pos, &complete), (std::vector<std::string>{"cut", "open"}));
  EXPECT_FALSE(complete);
  EXPECT_EQ(pos, text.size());
}

TEST(Csv, WritesHeaderAndFlushesEveryRow) {
  const std::string path = temp_file("metrics.csv");
  CsvWriter csv(path, {"epoch", "loss", "note"});
  EXPECT_EQ(read_file(path), "epoch,loss,note\n");
  csv.write_row({"1", "2.5", "warm-up, lr=1e-4"});
  // Visible to readers while the writer is still open.
  EXPECT_EQ(read_file(path), "epoch,loss,note\n1,2.5,\"warm-up, lr=1e-4\"\n");
  EXPECT_THROW(csv.write_row({"2", "2.1"}), std::invalid_argument);
}

TEST(Csv, AppendContinuesAFileWithTheSameHeader) {
  const std::string path = temp_file("resume.csv");
  {
    CsvWriter first(path, {"step", "loss"}, CsvWriter::Mode::kAppend);  // creates the file
    first.write_row({"1", "3.0"});
  }
  {
    CsvWriter second(path, {"step", "loss"}, CsvWriter::Mode::kAppend);
    second.write_row({"2", "2.0"});
  }
  EXPECT_EQ(read_file(path), "step,loss\n1,3.0\n2,2.0\n");
  // Truncate mode starts over.
  CsvWriter fresh(path, {"step", "loss"});
  EXPECT_EQ(read_file(path), "step,loss\n");
}

TEST(Csv, AppendRefusesAnotherHeader) {
  const std::string path = temp_file("other.csv");
  write_text_atomically(path, "step,loss\n1,3.0\n");
  try {
    CsvWriter csv(path, {"step", "loss", "bleu"}, CsvWriter::Mode::kAppend);
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), path + ":1: header \"step,loss\" is not this run's \"step,loss,bleu\"");
  }
  EXPECT_EQ(read_file(path), "step,loss\n1,3.0\n");  // untouched
}

TEST(Csv, AppendDropsARowCutByACrash) {
  const std::string path = temp_file("crashed.csv");
  write_text_atomically(path, "step,loss\n1,3.0\n2,2.");
  CsvWriter csv(path, {"step", "loss"}, CsvWriter::Mode::kAppend);
  csv.write_row({"2", "2.5"});
  EXPECT_EQ(read_file(path), "step,loss\n1,3.0\n2,2.5\n");
}

}  // namespace
}  // namespace dls::util

// CSV files of metrics (one row per step or epoch), written so that they survive crashes
// and resumed runs: the header is created atomically, every row is flushed as it is
// written, and append mode continues an existing file after checking its header.
#pragma once

#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

namespace dls::util {

// A field as CSV needs it (RFC 4180): quoted, with quotes doubled, when it holds a comma,
// a quote, a line break, or spaces at either end; unchanged otherwise.
std::string csv_field(std::string_view text);

// The fields joined by commas, ending in '\n'.
std::string csv_line(const std::vector<std::string>& fields);

// Reads one record starting at text[*pos] and moves *pos past it. Sets *complete to false
// when the text ends before the record does (no final line break, or an open quote).
std::vector<std::string> parse_csv_record(std::string_view text, std::size_t* pos, bool* complete);

class CsvWriter {
 public:
  enum class Mode {
    kTruncate,  // start a new file (replacing any old one) with the header
    kAppend,    // continue an existing file whose header must be `header`; create it if absent
  };

  // Throws std::runtime_error naming the file when it cannot be written or, in append mode,
  // when its first line is not `header` (a run writing other columns). A last row cut off
  // by a crash (no final line break) is removed, with a warning in the log.
  CsvWriter(std::string path, std::vector<std::string> header, Mode mode = Mode::kTruncate);
  ~CsvWriter();
  CsvWriter(const CsvWriter&) = delete;
  CsvWriter& operator=(const CsvWriter&) = delete;

  // Appends one row and flushes it. Throws std::invalid_argument unless it has one field
  // per column, std::runtime_error when the write fails.
  void write_row(const std::vector<std::string>& fields);

  const std::string& path() const { return path_; }

 private:
  std::string path_;
  std::size_t columns_;
  std::FILE* file_ = nullptr;
};

}  // namespace dls::util

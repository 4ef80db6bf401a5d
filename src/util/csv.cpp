#include "dls/util/csv.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#include <spdlog/spdlog.h>

#include "dls/util/file_io.h"

namespace dls::util {

std::string csv_field(std::string_view text) {
  const bool needs_quotes = text.find_first_of(",\"\r\n") != std::string_view::npos ||
                            (!text.empty() && (text.front() == ' ' || text.back() == ' '));
  if (!needs_quotes) return std::string(text);
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string csv_line(const std::vector<std::string>& fields) {
  std::string line;
  for (std::size_t i = 0; i < fields.size(); ++i) {
    if (i > 0) line += ',';
    line += csv_field(fields[i]);
  }
  return line + "\n";
}

std::vector<std::string> parse_csv_record(std::string_view text, std::size_t* pos, bool* complete) {
  std::vector<std::string> fields;
  std::string field;
  bool quoted = false;         // inside a quoted field
  bool field_started = false;  // the field has characters (a quote then is literal)
  *complete = false;
  std::size_t& i = *pos;
  while (i < text.size()) {
    const char c = text[i++];
    if (quoted) {
      if (c != '"') {
        field += c;
      } else if (i < text.size() && text[i] == '"') {
        field += '"', ++i;  // doubled quote
      } else {
        quoted = false;
      }
    } else if (c == '"' && !field_started) {
      quoted = field_started = true;
    } else if (c == ',') {
      fields.push_back(std::move(field));
      field.clear(), field_started = false;
    } else if (c == '\n') {
      if (!field.empty() && field.back() == '\r') field.pop_back();
      fields.push_back(std::move(field));
      *complete = true;
      return fields;
    } else {
      field += c, field_started = true;
    }
  }
  fields.push_back(std::move(field));
  return fields;
}

CsvWriter::CsvWriter(std::string path, std::vector<std::string> header, Mode mode)
    : path_(std::move(path)), columns_(header.size()) {
  if (header.empty()) throw std::invalid_argument(path_ + ": a CSV file needs at least one column");
  const std::string header_line = csv_line(header);
  std::error_code error;
  const bool fresh = mode == Mode::kTruncate || !std::filesystem::exists(path_, error) ||
                     std::filesystem::file_size(path_, error) == 0;
  if (fresh) {
    write_text_atomically(path_, header_line);
  } else {
    const std::string content = read_file(path_);
    std::size_t pos = 0;
    bool complete = false;
    if (parse_csv_record(content, &pos, &complete) != header || !complete) {
      const std::string first = content.substr(0, content.find('\n'));
      throw std::runtime_error(path_ + ":1: header \"" + first + "\" is not this run's \"" +
                               header_line.substr(0, header_line.size() - 1) + "\"");
    }
    // Rows end with a line break; a crash in the middle of one leaves a tail without it.
    std::size_t end_of_rows = pos;
    while (pos < content.size()) {
      parse_csv_record(content, &pos, &complete);
      if (complete) end_of_rows = pos;
    }
    if (end_of_rows < content.size()) {
      spdlog::warn("{}: removing an incomplete last row at byte {}", path_, end_of_rows);
      if (::truncate(path_.c_str(), static_cast<off_t>(end_of_rows)) != 0) {
        throw std::runtime_error(path_ + ": cannot cut the incomplete last row (" + std::strerror(errno) + ")");
      }
    }
  }
  file_ = std::fopen(path_.c_str(), "ab");
  if (file_ == nullptr) {
    throw std::runtime_error(path_ + ": cannot open for appending (" + std::strerror(errno) + ")");
  }
}

CsvWriter::~CsvWriter() {
  if (file_ != nullptr) std::fclose(file_);
}

void CsvWriter::write_row(const std::vector<std::string>& fields) {
  if (fields.size() != columns_) {
    throw std::invalid_argument(path_ + ": row of " + std::to_string(fields.size()) + " fields for " +
                                std::to_string(columns_) + " columns");
  }
  const std::string line = csv_line(fields);
  // One write per row, flushed at once: after a crash the file ends with whole rows
  // (or, at worst, one cut row that append mode removes).
  if (std::fwrite(line.data(), 1, line.size(), file_) != line.size() || std::fflush(file_) != 0) {
    throw std::runtime_error(path_ + ": write failed (" + std::strerror(errno) + ")");
  }
}

}  // namespace dls::util

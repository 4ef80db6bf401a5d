#include "metrics_file.h"

#include <cmath>
#include <filesystem>

#include "dls/util/file_io.h"

namespace dls::train {

std::vector<std::vector<std::string>> read_metrics_rows(const std::string& path) {
  std::vector<std::vector<std::string>> rows;
  const std::string text = util::read_file(path);
  std::size_t pos = 0;
  bool complete = true;
  while (pos < text.size()) {
    auto record = util::parse_csv_record(text, &pos, &complete);
    if (!complete) break;  // a row cut off by a crash
    rows.push_back(std::move(record));
  }
  return rows;
}

double metric_number(const std::string& text) {
  try {
    return text.empty() ? NAN : std::stod(text);
  } catch (const std::exception&) {
    return NAN;
  }
}

std::unique_ptr<util::CsvWriter> open_metrics(const std::string& path,
                                              const std::vector<std::string>& header, bool resume,
                                              std::int64_t resume_step, std::size_t step_column) {
  using Mode = util::CsvWriter::Mode;
  if (resume && std::filesystem::exists(path)) {
    const auto rows = read_metrics_rows(path);
    if (!rows.empty() && rows.front() == header) {
      std::string kept;
      for (std::size_t i = 0; i < rows.size(); ++i) {
        if (i == 0 || (rows[i].size() > step_column &&
                       metric_number(rows[i][step_column]) <= static_cast<double>(resume_step))) {
          kept += util::csv_line(rows[i]);
        }
      }
      util::write_text_atomically(path, kept);
    }
  }
  return std::make_unique<util::CsvWriter>(path, header, resume ? Mode::kAppend : Mode::kTruncate);
}

}  // namespace dls::train

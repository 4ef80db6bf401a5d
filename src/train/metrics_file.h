// The metrics.csv of a training run, shared by the trainers (private to src/train): read
// back for plots, and reopened on resume without the rows an interrupted run wrote after
// its last checkpoint.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "dls/util/csv.h"

namespace dls::train {

// Every complete record of the file (a last row cut off by a crash is left out).
std::vector<std::vector<std::string>> read_metrics_rows(const std::string& path);

// The number in a field; NaN for an empty or malformed one.
double metric_number(const std::string& text);

// Opens `path` with `header`. Fresh runs start a new file; resumed runs keep the header and
// the rows whose column `step_column` is at most `resume_step`, and append.
std::unique_ptr<util::CsvWriter> open_metrics(const std::string& path,
                                              const std::vector<std::string>& header, bool resume,
                                              std::int64_t resume_step, std::size_t step_column);

}  // namespace dls::train

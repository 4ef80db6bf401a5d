// The step rows of a run's metrics.csv, as the tests that compare two runs step for step read them.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "dls/util/csv.h"
#include "dls/util/file_io.h"

namespace dls::test {

// The training loss of every step row of a run's metrics.csv (columns kind, epoch, step, loss, ...).
inline std::vector<double> step_losses(const std::filesystem::path& run_dir) {
  const auto text = util::read_file((run_dir / "metrics.csv").string());
  std::vector<double> losses;
  std::size_t pos = 0;
  bool complete = true;
  util::parse_csv_record(text, &pos, &complete);  // the header
  while (pos < text.size()) {
    const auto fields = util::parse_csv_record(text, &pos, &complete);
    if (fields.at(0) == "step") losses.push_back(std::stod(fields.at(3)));
  }
  return losses;
}

}  // namespace dls::test

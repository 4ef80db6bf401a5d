// checkpoint_eval's reports write their files (bleu.csv, plots, confusion matrices) into the
// run directory unless --output-dir names another folder: a run directory that cannot take
// them (a read-only file system, another user's folder) is refused before the evaluation, in
// one line that says what to do, not after minutes of decoding with the system's message.
#pragma once

#include <stdexcept>
#include <string>

#include "dls/util/file_io.h"

namespace dls::report {

inline void check_output_folder(const std::string& run_dir, const std::string& files) {
  const std::string why = util::folder_write_error(run_dir);
  if (!why.empty()) {
    throw std::runtime_error(run_dir + ": cannot write " + files + " into the run directory (" + why +
                             "): give --output-dir DIR for them");
  }
}

}  // namespace dls::report

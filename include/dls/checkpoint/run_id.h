// The id that ties a run's checkpoints to its directory: a fresh run writes 16 random hex
// digits into RUN/RUN_ID, and every checkpoint it saves carries them as the text "run_id"
// (train/run/run_identity.h). A checkpoint copied in from another run is told apart by it.
#pragma once

#include <cstddef>
#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

#include "dls/checkpoint/checkpoint.h"
#include "dls/util/file_io.h"

namespace dls::checkpoint {

inline constexpr const char* kRunIdText = "run_id";  // the checkpoint text
inline constexpr const char* kRunIdFile = "RUN_ID";  // the file in the run directory

// The id in <run_dir>/RUN_ID; "" when there is none (a new directory, or a run from before
// run ids).
inline std::string read_run_id(const std::string& run_dir) {
  const auto path = std::filesystem::path(run_dir) / kRunIdFile;
  std::error_code error;
  if (!std::filesystem::exists(path, error)) return "";
  std::string id = util::read_file(path.string());
  while (!id.empty() && (id.back() == '\n' || id.back() == '\r')) id.pop_back();
  return id;
}

// `files` (oldest first), the checkpoints of run directory `run_dir`, without those another
// run wrote (a run id that is not RUN_ID's), each left out named on `messages`; all of them
// when the run or a checkpoint has no id (runs from before ids). At most the `newest` of them:
// each file is opened (its checksum read) to learn its run, so a job that reads only the
// newest few opens no more than those.
inline std::vector<std::string> this_runs_checkpoints(const std::vector<std::string>& files, const std::string& run_dir,
                                                      std::ostream& messages,
                                                      std::size_t newest = static_cast<std::size_t>(-1)) {
  const std::string here = read_run_id(run_dir);
  if (here.empty()) return files;
  std::vector<std::string> kept;  // newest first
  for (auto file = files.rbegin(); file != files.rend() && kept.size() < newest; ++file) {
    std::string theirs;
    try {
      const CheckpointReader reader(*file);
      theirs = reader.has_text(kRunIdText) ? reader.text(kRunIdText) : "";
    } catch (const std::exception&) {  // unreadable: the job that reads it says so
    }
    if (theirs.empty() || theirs == here) {
      kept.push_back(*file);
    } else {
      messages << "skipped: " << *file << ": a checkpoint of run " << theirs << ", not of " << run_dir
               << " (its RUN_ID is " << here << ")\n";
    }
  }
  return {kept.rbegin(), kept.rend()};
}

}  // namespace dls::checkpoint

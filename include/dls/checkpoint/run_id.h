// The id that ties a run's checkpoints to its directory: a fresh run writes 16 random hex
// digits into RUN/RUN_ID, and every checkpoint it saves carries them as the text "run_id"
// (train/run/run_identity.h). A checkpoint copied in from another run is told apart by it.
#pragma once

#include <string>
#include <vector>

#include "dls/checkpoint/checkpoint.h"

namespace dls::checkpoint {

inline constexpr const char* kRunIdText = "run_id";  // the checkpoint text
inline constexpr const char* kRunIdFile = "RUN_ID";  // the file in the run directory

// The run id `reader`'s checkpoint carries; "" for one written before run ids.
std::string run_id_in(const CheckpointReader& reader);

// The id in <run_dir>/RUN_ID; "" when there is none (a new directory, or a run from before
// run ids).
std::string read_run_id(const std::string& run_dir);

// The run whose RUN_ID a directory's checkpoints answer to: checkpoint::run_dir_of() of the
// directory resolved ("RUN/checkpoints/." and a link to RUN/checkpoints are RUN's).
std::string run_directory_of(const std::string& dir);

// A run directory's own checkpoints told apart from copied-in ones as a job reads them, with no
// read of its own (a checkpoint holds its run's id): a copy would join a report, an average or
// a translation as if the run had trained it.
class RunMembership {
 public:
  RunMembership() = default;  // keeps every checkpoint
  // Of `checkpoint_or_run`: a run directory (or its checkpoints/ folder) keeps its own, by
  // RUN_ID; a file named keeps itself, whatever run wrote it.
  explicit RunMembership(const std::string& checkpoint_or_run);
  // "" when `reader`'s checkpoint is the run's; else the line that says why it is left out
  // ("skipped: FILE: a checkpoint of run X, not of RUN (its RUN_ID is Y)").
  std::string left_out(const CheckpointReader& reader) const;

 private:
  std::string run_dir_;
  std::string here_;  // its RUN_ID ("": keeps all)
};

// checkpoint::checkpoints_kind() of `files` (oldest first, found in `checkpoint_or_run`) leaving
// out, for a run directory, those another run wrote: a copied-in checkpoint of another kind
// made the run look like that kind's. One file read when the newest is the run's.
std::string run_checkpoints_kind(const std::string& checkpoint_or_run, const std::vector<std::string>& files);

// Which checkpoint of a run directory a job reads.
enum class RunCheckpoint {
  kBestOrNewest,  // best.pt, else the newest: the one model a job that translates, generates,
                  // classifies or serves reads
  kNewest,        // where the run stopped (--init-from): its newest checkpoint, or best.pt
                  // when that is newer (checkpoint_files.h: latest_checkpoint)
};

// The checkpoint `pick` names in `checkpoint_or_run`, opened (read once): a file as it is named;
// for a run directory (or its checkpoints/ folder) one of this run's -- a newer one another run
// wrote (copied in) is passed over with a warning naming it. Throws CheckpointError as
// CheckpointReader does (a file of another kind than `expected_kind` too), std::runtime_error
// when the run holds no checkpoint, or none of its own.
CheckpointReader open_run_checkpoint(const std::string& checkpoint_or_run, const std::string& expected_kind = "",
                                     RunCheckpoint pick = RunCheckpoint::kBestOrNewest);

}  // namespace dls::checkpoint

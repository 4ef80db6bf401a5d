// A run's fingerprint and the start of each invocation in its directory. A fresh run writes
// a random id into <run>/RUN_ID and every checkpoint carries it (text "run_id"), so that a
// checkpoint of another run is never resumed into a directory silently; temporaries that a
// killed writer left behind are removed at start, with a note.
#pragma once

#include <string>

#include "dls/checkpoint/checkpoint_fwd.h"
#include "dls/checkpoint/run_id.h"

namespace dls::train {

class RunDirectory;

using checkpoint::kRunIdText;  // the checkpoint text holding the run id
using checkpoint::read_run_id;

// 16 random hexadecimal digits.
std::string new_run_id();

// The run id this invocation writes into its checkpoints. Fresh run (`resume` null): a new
// id, written to RUN_ID. Resume: the checkpoint's id after checking that it belongs here;
// throws std::runtime_error naming both when the directory holds another run -- its RUN_ID
// differs, or it holds an earlier run without one and the checkpoint comes from elsewhere.
// Checkpoints from before run ids are accepted from the run's own checkpoints/ folder.
std::string start_run_identity(const RunDirectory& run, const checkpoint::CheckpointReader* resume);

// Removes stale temporaries (*.tmp-PID of processes that are gone) from the run directory
// and its checkpoints/ folder, logging each.
void remove_stale_run_temporaries(const RunDirectory& run);

}  // namespace dls::train

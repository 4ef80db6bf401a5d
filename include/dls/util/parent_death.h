// A launcher's worker that outlives its launcher: torchrun's agent killed outright (SIGKILL,
// the OOM killer) left its workers training as orphans for the rest of the run.
#pragma once

namespace dls::util {

// From now on this process gets SIGTERM when its parent dies (Linux's PR_SET_PDEATHSIG; at
// once when the parent is gone already), which a trainer takes as a request to stop with a
// checkpoint. Nothing elsewhere.
void stop_when_parent_dies();

}  // namespace dls::util

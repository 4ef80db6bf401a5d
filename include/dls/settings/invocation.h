// What one invocation of a training program is asked besides its run's settings: what to
// resume, its threads and batch chunks, and its output. A program needs it before the
// settings exist (a resume starts from its checkpoint's), so its flags write straight into
// these fields (apps' add_option_flags) instead of changing settings after a preset.
#pragma once

#include <string>

#include "dls/util/declared.h"
#include "dls/util/runtime.h"

namespace dls::settings {

using util::Setting;

struct Invocation {
  std::string resume;  // --resume: checkpoint file or run directory
  int threads = 0;     // 0: OMP_NUM_THREADS, else all cores
  int workers = 0;     // 0: the program's default for its model and threads
  bool overwrite = false;
  bool dry_run = false;
  bool json = false;  // print one JSON object with the results at the end
  std::string log_level = "info";

  template <typename Fields>
  static void declare(Invocation& s, Fields& f) {
    f.group("Training");
    f(s.resume, Setting("", "--resume",
                        "continue from a checkpoint file or where a run directory stopped (its newest checkpoint, or "
                        "best.pt when that is newer): its settings are the starting point, flags change them"));
    f(s.threads, Setting("", "--threads", "intra-op CPU threads (default: OMP_NUM_THREADS when set, else all cores)")
                     .range(1, 256));
    f(s.workers, Setting("", "--workers",
                         "split each batch into N chunks trained concurrently, one thread each (CPU; 1: the plain "
                         "loop; default: the model's own for the threads)")
                     .range(1, 256));
    f.group("Output");
    f(s.overwrite, Setting("", "--overwrite",
                           "a new run in a --run-dir that holds an earlier run moves that run aside to DIR.old-N "
                           "(nothing is deleted)"));
    f(s.dry_run, Setting("", "--dry-run", "read the data, build the model, print the start-up report and stop"));
    f(s.json, Setting("", "--json", "print one JSON object with the results at the end (on stdout; logs on stderr)"));
    f(s.log_level, Setting("", "--log-level", "trace, debug, info, warn, error or off").one_of(util::kLogLevels));
  }
};

}  // namespace dls::settings

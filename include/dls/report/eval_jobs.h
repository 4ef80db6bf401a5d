// checkpoint_eval's jobs, as the library does them once a command line (or any other front
// end) has filled an EvalCommand (eval_command.h): the report over a run's checkpoints,
// translation, classification, generation, scoring text files, averaging, and DLStudio import
// and export -- a subcommand's job, or in the one-command form of earlier versions the job its
// options say.
#pragma once

#include <iosfwd>
#include <string>

#include "dls/report/eval_command.h"

namespace dls::report {

struct EvalOutcome {
  int status = 0;
  EvalJob job = EvalJob::kReport;  // the job done (the one-command form's, as its options said)
};

// Does `job` (kAny: as the options say) and returns the exit status: 1 when a sentence of a
// translation or an image to classify failed. Results go to `out`, progress and per-sentence errors to `messages`,
// --interactive reads `in`. Throws std::runtime_error (one line) for anything the user can
// mend.
EvalOutcome run_eval(EvalJob job, EvalCommand& command, std::istream& in, std::ostream& out, std::ostream& messages);

}  // namespace dls::report

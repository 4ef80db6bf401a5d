// Reports on the checkpoints of a language-model run (checkpoint_eval's LM part): the
// validation perplexity of every checkpoint (kind "lm") as a table or JSON, and text
// generated from prompts by the newest checkpoint with cached keys/values.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include "dls/checkpoint/checkpoint.h"
#include "dls/checkpoint/run_id.h"
#include "dls/eval/lm_generation.h"

namespace dls::report {

using eval::SamplingOptions;

struct LmEvalRequest {
  std::string data_path;   // non-empty: the run's corpus, if no longer where the checkpoints say
  std::string test_file;   // non-empty: the perplexity of this file's sentences instead of the validation split
  std::int64_t limit = 0;  // > 0: the first N sentences only
  std::vector<std::string> prompts;  // non-empty: generate from each instead of the table
  std::int64_t samples = 1;          // texts per prompt
  std::int64_t tokens = 300;         // running-text runs: tokens generated per text
  bool tokens_asked = false;         // --tokens given (a sentence model refuses it, even at 300)
  SamplingOptions sampling;          // temperature, top-k, top-p, seed (sample i uses seed + i)
  bool json = false;                 // one JSON object on `out` instead of the text report
  int threads = 0;                   // intra-op threads (0: all cores)
  std::string device = "cpu";        // cpu, cuda or auto
  checkpoint::Weights weights = checkpoint::Weights::kEvaluation;  // the moving average when saved, or the trained
  // Whose checkpoints are evaluated: a run directory's own (another run's, copied in, are named
  // on `messages` and left out), told as each file is read; default: every file given.
  checkpoint::RunMembership run;
};

// Without prompts: evaluates every file and prints a table (checkpoint, epoch, step, NLL
// per token, perplexity) or JSON; an unreadable checkpoint among several is skipped and
// named on `messages`. With prompts: the newest file generates (generate_lm_text). Throws
// CheckpointError (a bad file) or std::runtime_error (one line) for anything else.
void report_lm_checkpoints(const std::vector<std::string>& checkpoint_files, const LmEvalRequest& request,
                           std::ostream& out, std::ostream& messages);

// Text generated from each of request.prompts by the model of `checkpoint` (one the program
// opened already, to learn its kind: read once, let go once the model is loaded), as lines
// "prompt -> text" or one JSON object. Throws as report_lm_checkpoints.
void generate_lm_text(std::unique_ptr<checkpoint::CheckpointReader> checkpoint, const LmEvalRequest& request,
                      std::ostream& out, std::ostream& messages);

}  // namespace dls::report

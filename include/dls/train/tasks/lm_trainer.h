// Training a decoder-only language model (lm_train): the LmTask on the shared training loop
// -- progress line, per-epoch validation perplexity, metrics.csv, loss/perplexity plots,
// resumable checkpoints, divergence check. The settings that travel in checkpoints:
// settings/lm_settings.h; presets: lm_presets.h.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "dls/checkpoint/opened_checkpoint.h"
#include "dls/settings/lm_settings.h"
#include "dls/train/loop_state.h"
#include "dls/train/run_result.h"

namespace dls::train {

struct LmTrainResult : RunResult {
  double sentences_per_s = 0;           // training sentences per second, this invocation
  double initial_val_perplexity = NAN;  // a fresh run's untrained model (NaN when resumed)
  double val_nll = NAN;                 // latest validation mean NLL per token
  double val_perplexity = NAN;          // exp(val_nll)
  double val_word_perplexity = NAN;     // exp(Σ NLL / (words + EOS)): per word whatever the tokens
  std::int64_t vocab_size = 0;

  // The --json object of the trainer: these fields, then RunResult's.
  std::string json(const std::string& precision) const;
};

// Trains (or resumes: settings.run.resume) and returns the summary. Data and checkpoint
// errors propagate as std::runtime_error with one-line messages. `opened`: the --resume or
// --init-from checkpoint the program opened already for its settings, taken rather than read
// again (checkpoint/opened_checkpoint.h).
LmTrainResult train_lm(const settings::LmTrainSettings& settings, checkpoint::OpenedCheckpoints opened = {});

}  // namespace dls::train

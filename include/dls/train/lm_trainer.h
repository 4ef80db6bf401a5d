// Training a decoder-only language model (lm_train): the LmTask on the shared training loop
// -- progress line, per-epoch validation perplexity, metrics.csv, loss/perplexity plots,
// resumable checkpoints, divergence check. The settings that travel in checkpoints:
// checkpoint/lm_settings.h; presets: lm_presets.h.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "dls/checkpoint/lm_settings.h"
#include "dls/train/data_parallel.h"
#include "dls/train/training_loop.h"

namespace dls::train {

// How this invocation runs (not saved in checkpoints).
struct LmRunControl {
  // checkpoints/, metrics.csv, plots; "": the resumed checkpoint's run, else runs/lm
  std::string run_dir;
  std::string resume;                 // checkpoint file or run directory to continue from
  std::int64_t checkpoint_every = 1;  // epochs between checkpoints (the last one is always saved)
  int keep_last = 0;                  // > 0: delete older checkpoints this run wrote
  std::int64_t max_iters = 0;         // > 0: stop after this many optimizer steps in all
  double time_limit_s = 0;            // > 0: stop (with a checkpoint) after this long
  std::int64_t log_every = 100;       // steps between log lines and metrics.csv rows
  std::string device = "cpu";         // cpu | cuda | auto
  int workers = 1;                    // > 1 (CPU): each batch in this many concurrent chunks
  ParallelOptions parallel;           // process group (from the environment) and gradient accumulation
  bool overwrite = false;             // a fresh run moves an earlier run in its directory aside
  std::string config_toml;            // the program's options, written to a fresh run's directory as config.toml
  util::Precision precision = util::Precision::kFp32;
  bool dry_run = false;  // read the data, build the model, print the report, stop
};

struct LmTrainResult {
  double sentences_per_s = 0;            // training sentences per second, this invocation
  double final_loss = NAN;               // mean training loss per token of the last (partial) epoch
  double initial_val_perplexity = NAN;   // a fresh run's untrained model (NaN when resumed)
  double val_nll = NAN;                  // latest validation mean NLL per token
  double val_perplexity = NAN;           // exp(val_nll)
  double val_word_perplexity = NAN;      // exp(Σ NLL / (words + EOS)): per word whatever the tokens
  std::int64_t epochs = 0;               // epochs completed in all
  std::int64_t iterations = 0;           // optimizer steps in all
  double wall_s = 0;                     // wall time of this invocation
  std::vector<std::string> checkpoints;  // written by this invocation
  std::int64_t parameters = 0;
  std::int64_t vocab_size = 0;
  std::string stopped_by;  // "epochs", "max-iters", "time-limit", "patience" or "dry-run"
  std::string run_dir;
  ParallelReport parallel;  // world size, rank, backend, all-reduce time
};

// Trains (or resumes: control.resume) and returns the summary. Data and checkpoint errors
// propagate as std::runtime_error with one-line messages.
LmTrainResult train_lm(const checkpoint::LmTrainSettings& settings, const LmRunControl& control);

}  // namespace dls::train

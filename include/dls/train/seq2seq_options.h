// Everything that defines a seq2seq training run besides the model's shape, and the
// presets: DLStudio's example script, and a small configuration that trains usefully on a
// 2-core CPU.
#pragma once

#include <cstdint>
#include <string>

#include "dls/models/seq2seq.h"
#include "dls/train/lr_schedule.h"
#include "dls/train/optimizer.h"
#include "dls/util/key_values.h"

namespace dls::train {

struct Seq2SeqTrainOptions {
  // Data
  std::string data_path;                // TSV (Tatoeba/Anki) or DLStudio archive
  int max_words = 8;                    // longest sentence per side; L = max_words + 2
  std::uint64_t split_seed = 1234;      // validation split, by English sentence
  std::int64_t validation_pairs = 2000; // held-out pairs (at least)
  bool dlstudio_loss = false;           // DLStudio's EOS padding and summed loss
  // Training
  std::int64_t epochs = 40;             // total epochs of the run
  std::int64_t batch_size = 50;
  std::int64_t max_iters = 0;           // > 0: stop once the run has made this many steps in all
  double time_limit_s = 0;              // > 0: stop (with a checkpoint) after this long, per invocation
  LrSchedule schedule;
  OptimizerOptions optimizer;
  double label_smoothing = 0.0;
  std::uint64_t seed = 0;               // initialisation, batch order, dropout
  // Output
  std::string run_dir = "runs/seq2seq";
  std::int64_t checkpoint_every = 5;    // epochs (plus the last one)
  int keep_last = 0;                    // > 0: keep only the newest K checkpoints of this run
  std::int64_t log_every = 200;         // iterations between DLStudio-style log lines
  std::int64_t samples = 20;            // translations printed at the end
  std::int64_t bleu_sentences = 0;      // validation sentences translated per epoch; 0 = all
  std::string device = "cpu";

  util::KeyValues to_settings() const;
  static Seq2SeqTrainOptions from_settings(const util::KeyValues& settings);
};

struct Seq2SeqPreset {
  Seq2SeqConfig model;  // vocabulary sizes are filled in from the data
  Seq2SeqTrainOptions training;
};

// "dlstudio": DLStudio's example script -- FG (or PreLN), dlstudio layout, M = 256,
//   4 encoders, 4 decoders, 4 heads, L = 10, batch 50, 40 epochs; FG: Adam(0.9, 0.98, 1e-6)
//   with the warm-up schedule (4000 steps); PreLN: plain Adam at 1e-5.
// "cpu": a small standard transformer that learns in minutes on 2 cores (see README).
// Throws std::invalid_argument for an unknown name.
Seq2SeqPreset seq2seq_preset(const std::string& name, Variant variant);

}  // namespace dls::train

// Reports on the checkpoints of a seq2seq run (checkpoint_eval's seq2seq part): BLEU of
// every checkpoint on its held-out validation split (or a test file), divergence marked,
// bleu.csv and a BLEU-vs-epoch plot, DLStudio-style sample translations.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "dls/checkpoint/checkpoint.h"
#include "dls/checkpoint/run_id.h"
#include "dls/eval/decoding.h"
#include "dls/util/line_plot.h"

namespace dls::report {

using eval::DecodeOptions;

struct Seq2SeqEvalRequest {
  std::string test_file;  // non-empty: score this corpus (TSV or archive) instead
  std::string test_src;   // non-empty (with test_tgt): score these parallel files instead
  std::string test_tgt;
  int src_column = 0;  // test_file's TSV columns, 1-based (0: the checkpoint's)
  int tgt_column = 0;
  std::string data_path;  // non-empty: the training corpus (TSV or archive), when it has moved
  std::size_t limit = 0;  // > 0: the first N sentences only
  DecodeOptions decode;
  std::size_t samples = 0;  // DLStudio-format sample translations of the best checkpoint
  std::uint64_t seed = 0;   // which samples
  bool json = false;        // one JSON object instead of the text report
  std::string output_dir;   // bleu.csv and the plot (empty: the run directory)
  int threads = 0;          // intra-op threads (0: all cores)
  std::string device = "cpu";
  checkpoint::Weights weights = checkpoint::Weights::kEvaluation;  // the moving average when saved, or the trained
  // Whose checkpoints are evaluated: a run directory's own (another run's, copied in, are named
  // on `messages` and left out), told as each file is read; default: every file given.
  checkpoint::RunMembership run;
};

// One evaluated checkpoint.
struct CheckpointBleu {
  std::string path;
  double epochs_done = 0;  // completed epochs, fractional mid-epoch
  std::int64_t step = 0;   // global training step
  double bleu = 0;         // NLTK's 0..1 corpus BLEU
  double sacrebleu = NAN;  // sacreBLEU's BLEU, 0..100
  double val_loss = 0;
  bool loss_measured = true;  // false: no pair had both sides within the model's L (val_loss NaN)
  double sentences_per_s = 0;
  bool diverged = false;
};

// A checkpoint diverged when its BLEU fell below a fifth of the best BLEU before it while
// that best was a real score (>= 0.01), or when its measured loss is not finite.
void mark_diverged(std::vector<CheckpointBleu>& results);

// The checkpoint with the highest BLEU among those not diverged (the first of equals);
// results must not be empty.
std::size_t best_checkpoint(const std::vector<CheckpointBleu>& results);

// bleu_vs_epoch.png: the BLEU of every checkpoint against its epochs, on sacreBLEU's 0-100
// scale (NLTK's corpus BLEU x 100, and sacreBLEU where known). `what`: the decoding.
util::LinePlot checkpoint_bleu_plot(const std::vector<CheckpointBleu>& results, const std::string& what);

// What the report covered.
struct Seq2SeqCheckpointReport {
  std::vector<CheckpointBleu> checkpoints;  // the readable files, in the order given, divergence marked
  std::size_t best = 0;                     // index in checkpoints (best_checkpoint)
  std::vector<std::string> skipped;         // unreadable files among several
  std::vector<std::string> files;           // written: bleu.csv and the BLEU-vs-epoch plot
};

// Evaluates the files (seq2seq checkpoints, in epoch order), writes bleu.csv and the plot,
// and the report (the table or one JSON object, and the samples) to `out`. An unreadable
// checkpoint among several is skipped and named on `messages` ("skipped: <why>").
// Throws CheckpointError (a bad file) or std::runtime_error (one line) for anything else.
Seq2SeqCheckpointReport report_seq2seq_checkpoints(const std::vector<std::string>& checkpoint_files,
                                                   const Seq2SeqEvalRequest& request, std::ostream& out,
                                                   std::ostream& messages);

}  // namespace dls::report

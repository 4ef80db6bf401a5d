// Training English->Spanish transformers: the loop behind seq2seq_train. Reads the
// corpus, splits it, builds the vocabularies, prints DLStudio's start-up report, trains
// with a live progress line and DLStudio-style log lines, validates every epoch (loss and
// greedy-decoding corpus BLEU), writes metrics.csv, loss.png, bleu.png, the checkpoints and
// the final translations into the run directory, and resumes exactly where a checkpoint
// left off.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "dls/checkpoint/opened_checkpoint.h"
#include "dls/checkpoint/seq2seq_checkpoint.h"
#include "dls/settings/seq2seq_settings.h"
#include "dls/train/loop_state.h"
#include "dls/train/run_result.h"

namespace dls::train {

struct Seq2SeqTrainResult : RunResult {
  double pairs_per_s = 0;  // training pairs per second of the epochs' wall time (evaluations aside), this invocation
  double val_loss = NAN;   // after the last validated epoch
  double val_bleu = NAN;   // corpus BLEU (NLTK scale 0-1) after the last validated epoch
  // sacreBLEU's BLEU and chrF2 (0-100) and their signatures, of this invocation's last
  // validation (NaN and empty when it validated nothing).
  double val_sacrebleu = NAN;
  double val_chrf = NAN;
  std::string sacrebleu_signature, chrf_signature;
  std::int64_t encoder_parameters = 0;
  std::int64_t decoder_parameters = 0;
  // --test-src/--test-tgt: the final weights' scores on every test pair, as checkpoint_eval
  // report scores a test set (absent without one).
  struct TestSetScore {
    std::string source;      // the files, as the start-up line names them
    std::size_t pairs = 0;   // every pair of the files
    std::size_t longer = 0;  // sources longer than L - 2 tokens, translated whole or in parts
    double bleu = NAN;       // NLTK's corpus BLEU (0-1)
    double sacrebleu = NAN, chrf = NAN;
    std::string sacrebleu_signature, chrf_signature;
  };
  std::optional<TestSetScore> test;

  // The --json object of the trainer: these fields, then RunResult's.
  std::string json(const std::string& precision) const;
};

// Thrown when the loss becomes NaN or infinite; names the last good checkpoint.
using Seq2SeqDiverged = TrainingDiverged;

// Trains settings.model (its vocabulary sizes and L are set from the data) with `settings`.
// When settings.run.resume is set, the checkpoint's model config must equal settings.model
// (vocabulary sizes aside) and its vocabularies and split are reused; `settings` then continue
// the run (resume_info() gives the checkpoint's own, to start from). With a DLStudio archive as
// `dlstudio_vocab`, the start-up report also gives DLStudio's parameter counts with its
// vocabularies (no <pad>/<unk>), e.g. 124,583,936 and 149,886,015 for the slides' model.
// Errors in data or checkpoints propagate as std::runtime_error with one-line messages.
// `opened`: the --resume or --init-from checkpoint the program opened already for its settings,
// taken rather than read again (checkpoint/opened_checkpoint.h).
Seq2SeqTrainResult train_seq2seq(const settings::Seq2SeqTrainSettings& settings, const std::string& dlstudio_vocab = "",
                                 checkpoint::OpenedCheckpoints opened = {});

// Whether a run's loss can be recorded in a CUDA graph once its batches have static shapes:
// a transformer's without --max-tokens (an RNN packs its sequences by length on the host).
// Where it cannot, --cuda-graphs auto trains eager without padding batches to static shapes.
bool seq2seq_loss_capturable(const settings::Seq2SeqTrainSettings& settings);

// What the newest checkpoint of `dir_or_file` stores: its settings (the model config
// included), split, vocabularies and progress.
checkpoint::Seq2SeqCheckpointInfo resume_info(const std::string& dir_or_file);

}  // namespace dls::train

// Everything that defines a seq2seq training run -- model config, data, optimizer, schedule,
// seed -- as its checkpoints record it ("model.*", and "training.*" for all the rest). The
// presets that fill it in: train/tasks/seq2seq_presets.h.
#pragma once

#include <cstdint>
#include <string>

#include "dls/settings/lr_schedule.h"
#include "dls/settings/optimizer_settings.h"
#include "dls/settings/run_settings.h"
#include "dls/settings/selection_settings.h"
#include "dls/data/seq2seq_dataset.h"
#include "dls/data/vocabulary.h"
#include "dls/models/seq2seq.h"
#include "dls/util/key_values.h"

namespace dls::settings {

struct Seq2SeqTrainSettings {
  Seq2SeqConfig model;  // vocabulary sizes (and L) are filled in from the data
  // Data: the corpus, its split, words or pieces (data/seq2seq_dataset.h). Its checkpoint
  // keys stay beside the others ("training.data_path", "training.max_words", ...).
  data::Seq2SeqDataSettings data;
  bool dlstudio_loss = false;  // DLStudio's EOS padding and summed loss
  // Training
  std::int64_t epochs = 40;  // total epochs of the run
  std::int64_t batch_size = 50;
  // > 0: batches filled to this many tokens instead of batch_size pairs (fairseq's
  // --max-tokens, Marian's --mini-batch-words): pairs of similar length (data/token_batches.h),
  // each batch's rows x its longest side at most max_tokens; the loss is per target token.
  std::int64_t max_tokens = 0;
  bool length_buckets = false;  // batches of similar lengths, each cut to its longest sentence (vaswani)
  // Static shapes: every batch batch_size rows (a short last batch filled with fully masked
  // rows) and, with length buckets, one of a few widths (data::static_width); the loss over
  // every output row, masked. The same loss and gradients as the batch without them; what
  // replaying a captured step (CUDA graphs) needs. Off by default on every device: without
  // a captured step it only adds padded work.
  bool static_shapes = false;
  LrSchedule schedule;
  OptimizerSettings optimizer;
  double label_smoothing = 0.0;
  std::uint64_t seed = 0;               // initialisation, batch order, dropout
  SelectionSettings selection{"bleu"};  // best.pt, early stopping, weight EMA
  // Output
  std::int64_t samples = 20;        // translations printed at the end
  std::int64_t bleu_sentences = 0;  // validation sentences translated per epoch; 0 = all
  // The preset a fresh run started from and, when no --preset named it, why: the start-up
  // report logs it after the data is read, so that a bad corpus is still one error line.
  // Not saved: the settings themselves are.
  std::string preset_note;
  // Where it runs, where it writes, when it stops: what every run has. Checkpoints every 5
  // epochs, DLStudio-style log lines every 200 steps.
  RunSettings run = [] {
    RunSettings run;
    run.checkpoint_every = 5;
    run.log_every = 200;
    return run;
  }();

  // How this run's sentences are padded: DLStudio's loss trains with EOS padding (its
  // <pad> embedding never learns), the others with <pad>. Training, evaluation,
  // translation and attention maps all pad this way: in the flattened layout every padding
  // row changes every output.
  data::Vocabulary::Padding padding() const {
    return dlstudio_loss ? data::Vocabulary::Padding::kEos : data::Vocabulary::Padding::kPad;
  }

  // The model under "model." and everything else under "training." (the keys seq2seq
  // checkpoints have always had).
  util::KeyValues to_settings() const;
  // Throws on a missing or malformed setting (KeyValues' errors name it).
  static Seq2SeqTrainSettings from_settings(const util::KeyValues& settings);
};

// "word" -> false, "sentencepiece" -> true (Seq2SeqDataSettings::subword_units); throws
// std::invalid_argument otherwise.
bool parse_tokenizer(const std::string& name);

}  // namespace dls::settings

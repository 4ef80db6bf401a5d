// Everything that defines a seq2seq training run besides the model's shape, as its
// checkpoints record it ("training.*"). The presets that fill it in: train/seq2seq_presets.h.
#pragma once

#include <cstdint>
#include <string>

#include "dls/checkpoint/lr_schedule.h"
#include "dls/checkpoint/optimizer_options.h"
#include "dls/checkpoint/selection_options.h"
#include "dls/data/subword_model.h"
#include "dls/data/vocabulary.h"
#include "dls/util/key_values.h"

namespace dls::checkpoint {

struct Seq2SeqTrainOptions {
  // Data
  std::string data_path;                 // TSV (Tatoeba/Anki) or DLStudio archive
  int max_words = 8;                     // longest sentence per side; L = max_words + 2
  std::uint64_t split_seed = 1234;       // validation split, by English sentence
  std::int64_t validation_pairs = 2000;  // held-out pairs (at least)
  bool dlstudio_loss = false;            // DLStudio's EOS padding and summed loss
  bool subword_units = false;            // SentencePiece pieces (`subwords`) instead of words
  data::SubwordOptions subwords;         // trained on the training split, kept in the checkpoint
  // Training
  std::int64_t epochs = 40;  // total epochs of the run
  std::int64_t batch_size = 50;
  bool length_buckets = false;  // batches of similar lengths, each cut to its longest sentence (vaswani)
  std::int64_t max_iters = 0;   // > 0: stop once the run has made this many steps in all
  double time_limit_s = 0;      // > 0: the whole run's budget (training_loop.h)
  LrSchedule schedule;
  OptimizerOptions optimizer;
  double label_smoothing = 0.0;
  std::uint64_t seed = 0;              // initialisation, batch order, dropout
  SelectionOptions selection{"bleu"};  // best.pt, early stopping, weight EMA
  // Output
  std::string run_dir = "runs/seq2seq";
  std::int64_t checkpoint_every = 5;  // epochs (plus the last one)
  int keep_last = 0;                  // > 0: keep only the newest K checkpoints of this run
  std::int64_t log_every = 200;       // iterations between DLStudio-style log lines
  std::int64_t samples = 20;          // translations printed at the end
  std::int64_t bleu_sentences = 0;    // validation sentences translated per epoch; 0 = all
  std::string device = "cpu";

  // How this run's sentences are padded: DLStudio's loss trains with EOS padding (its
  // <pad> embedding never learns), the others with <pad>. Training, evaluation,
  // translation and attention maps all pad this way: in the flattened layout every padding
  // row changes every output.
  data::Vocabulary::Padding padding() const {
    return dlstudio_loss ? data::Vocabulary::Padding::kEos : data::Vocabulary::Padding::kPad;
  }

  util::KeyValues to_settings() const;
  static Seq2SeqTrainOptions from_settings(const util::KeyValues& settings);
};

// "word" -> false, "sentencepiece" -> true (Seq2SeqTrainOptions::subword_units); throws
// std::invalid_argument otherwise.
bool parse_tokenizer(const std::string& name);

}  // namespace dls::checkpoint

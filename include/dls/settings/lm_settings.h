// Everything that defines a language-model training run -- model config, data, optimizer,
// schedule, seed -- as its checkpoints record it ("model.*", "data.*", "optimizer.*",
// "train.*", "selection.*"). The presets that fill it in: train/tasks/lm_presets.h.
#pragma once

#include <cstdint>
#include <string>

#include "dls/settings/common_settings.h"
#include "dls/settings/init_vocab.h"
#include "dls/util/declared.h"
#include "dls/settings/lr_schedule.h"
#include "dls/settings/optimizer_settings.h"
#include "dls/settings/run_settings.h"
#include "dls/settings/selection_settings.h"
#include "dls/data/data_folder.h"
#include "dls/data/lm_dataset.h"
#include "dls/models/language_model.h"
#include "dls/util/key_values.h"

namespace dls::settings {

using util::Setting;

struct LmTrainSettings {
  std::string preset = "cpu";  // the preset these settings started from (information)
  LanguageModelConfig model;   // vocab_size and L are set from the data
  data::LmDataSettings data;   // data/lm_dataset.h
  // A new run from --init-from's weights: its vocabulary (data/lm_dataset.h: InheritedLmVocabulary).
  InitVocab init_vocab = InitVocab::kExtend;
  std::int64_t batch_size = 64;
  std::int64_t epochs = 4;
  OptimizerSettings optimizer;  // kind, betas, eps, weight decay, gradient clipping
  ScheduleKind schedule = ScheduleKind::kWarmupCosine;
  double lr = 1e-3;                     // constant rate, or the cosine schedule's peak
  double min_lr = 1e-5;                 // cosine: the rate at the end of the last epoch
  std::int64_t warmup_steps = 500;      // cosine: linear warm-up length
  double label_smoothing = 0.0;         // of the training loss (validation reports the plain NLL)
  std::uint64_t seed = 0;               // initialisation, data order, dropout
  SelectionSettings selection{"loss"};  // best.pt (by validation NLL), early stopping, weight EMA

  // Where it runs, where it writes, when it stops: what every run has. Checkpoints every
  // epoch, log lines every 100 steps.
  RunSettings run = RunSettings::task_defaults("runs/lm", /*checkpoint_every=*/1, /*log_every=*/100);

  // Every setting, in checkpoints under "model.", "data.", "train.", "optimizer.", "selection."
  // and "run.".
  template <typename Fields>
  static void declare(LmTrainSettings& s, Fields& f) {
    auto& d = s.data;
    f.section("data", [&] {
      f.group("Data");
      f(d.path,
        Setting("path", "--data",
                std::string("sentences: plain text (one per line), a Tatoeba/Anki TSV or a DLStudio archive; ") +
                    data::kDefaultCorpusHelp)
            .as_path());
      f(d.side, Setting("side", "--side", "es or en: the TSV side, and the normalisation rules of plain text")
                    .one_of({"es", "en"})
                    .fixed());
      f(d.max_words, Setting("max_words", "--max-words",
                             "longest sentence kept, in words (L = max-words + 2; sentencepiece: L = the longest kept "
                             "sentence in pieces + 2)")
                         .range(1, 1000)
                         .fixed());
      declare_tokenizer(d.subword_units, d.subwords, f, &d.char_units);
      declare_init_vocab(s.init_vocab, f,
                         "with --init-from: extend (the parent's vocabulary -- an lm_train run's, or a seq2seq_train "
                         "run's target side -- then this data's new tokens), parent (its alone: new tokens are <unk>) "
                         "or data (this data's alone); sentencepiece: extend is the parent's model");
      f(d.min_count, Setting("min_count", "--min-count",
                             "words or characters: a training token seen fewer than N times reads as <unk> (default "
                             "1: every one)")
                         .range(1, 1000000000)
                         .default_when_absent()
                         .fixed());
      f(d.max_vocab, Setting("max_vocab", "--max-vocab",
                             "words or characters: the N most frequent training tokens, the others <unk> (default 0: "
                             "all)")
                         .range(0, 1000000000)
                         .default_when_absent()
                         .fixed());
      f(d.block_size, Setting("block_size", "--block-size",
                              "> 0: the file is running text, read as context windows of this many tokens (a GPT's "
                              "block; L = block-size + 1), not sentences")
                          .range(0, 100000)
                          .default_when_absent()
                          .fixed());
      f(d.validation_fraction, Setting("validation_fraction", "--validation-fraction",
                                       "--block-size: the last lines holding this share of the text are held out")
                                   .range(0, 0.5)
                                   .default_when_absent()
                                   .fixed());
      f(d.validation_sentences, Setting("validation_sentences", "--validation-sentences",
                                        "held-out sentences for the perplexity (a repeated sentence stays on one side)")
                                    .range(0, 1000000000)
                                    .fixed());
      f(d.split_seed,
        Setting("split_seed", "--split-seed", "seed of the validation split").range(0, 18446744073709551615.0).fixed());
    });
    f.group("Model");
    f.section("model", [&] { LanguageModelConfig::declare(s.model, f); });
    declare_training_and_output(s, f, "sentences", "initialisation, data order, dropout", {"loss"}, [&] {
      f(s.warmup_steps,
        Setting("warmup_steps", "--warmup-steps", "cosine: warm-up length in steps").range(0, 1000000000));
    });
  }

  util::KeyValues to_settings() const;
  // Throws std::runtime_error naming the missing or malformed setting.
  static LmTrainSettings from_settings(const util::KeyValues& settings);
  // Refuses, in one line, what the data's form would ignore (compared by value with `preset`,
  // the settings before the command line, as a config.toml repeats them all): subword settings
  // without --tokenizer sentencepiece (a new run's), --min-count/--max-vocab with it, sentence
  // settings on running text
  // (--block-size) and --validation-fraction on sentences.
  void check_data(const LmTrainSettings& preset, bool resuming) const;
  // The start-up log's description: the preset and model, then describe_settings() (util/declared.h).
  std::string describe() const;
};

}  // namespace dls::settings

// Everything that defines a seq2seq training run -- model config, data, optimizer, schedule,
// seed -- as its checkpoints record it ("model.*", and "training.*" for all the rest). The
// presets that fill it in: train/tasks/seq2seq_presets.h.
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
#include "dls/data/seq2seq_dataset.h"
#include "dls/data/vocabulary.h"
#include "dls/models/seq2seq.h"
#include "dls/models/translation_model.h"
#include "dls/util/enum_names.h"
#include "dls/util/key_values.h"

namespace dls::settings {

using util::Setting;

struct Seq2SeqTrainSettings {
  // What translates: the transformer (`model`) or an RNN encoder-decoder with attention (`rnn`).
  Architecture architecture = Architecture::kTransformer;
  Seq2SeqConfig model;  // vocabulary sizes (and L) are filled in from the data, for either architecture
  // rnn-attention: the RNN's sizes and attention (vocabulary sizes and L from the data), and
  // the probability that a training position reads the gold previous word rather than the
  // model's own prediction (1: plain teacher forcing).
  RnnSeq2SeqConfig rnn;
  double teacher_forcing = 1.0;
  // Data: the corpus, its split, words or pieces (data/seq2seq_dataset.h). Its checkpoint
  // keys stay beside the others ("training.data_path", "training.max_words", ...).
  data::Seq2SeqDataSettings data;
  bool dlstudio_loss = false;  // DLStudio's EOS padding and summed loss
  // A new run from --init-from's weights: its vocabularies (data/seq2seq_dataset.h:
  // InheritedVocabularies).
  InitVocab init_vocab = InitVocab::kExtend;
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
  RunSettings run = RunSettings::task_defaults("runs/seq2seq", /*checkpoint_every=*/5, /*log_every=*/200);

  // How this run's sentences are padded: DLStudio's loss trains with EOS padding (its
  // <pad> embedding never learns), the others with <pad>. Training, evaluation,
  // translation and attention maps all pad this way: in the flattened layout every padding
  // row changes every output.
  data::Vocabulary::Padding padding() const {
    return dlstudio_loss ? data::Vocabulary::Padding::kEos : data::Vocabulary::Padding::kPad;
  }

  // The model these settings describe, freshly initialised from torch's generator: the
  // transformer of `model`, or the RNN of `rnn` with model's vocabulary sizes and L.
  TranslationModel build_model() const;
  RnnSeq2SeqConfig rnn_config() const;  // rnn with the vocabulary sizes and L of `model`
  // "FG/vaswani M=256 ..." or "GRU, bidirectional, ..." as the architecture has it.
  std::string model_summary() const;
  // Refuses, in one line, what the command line asked of the architecture this run does not
  // train: a transformer's sizes for an RNN run, --rnn-*/--attention-*/--teacher-forcing for a
  // transformer's (compared by value with `preset`, the settings before the command line, as
  // a config.toml repeats them all), and an RNN that cannot be built -- before data is read.
  void check_architecture(const Seq2SeqTrainSettings& preset) const;
  // Refuses, in one line, subword settings without --tokenizer sentencepiece (by value: a
  // config.toml written by a word-level run lists them at their defaults), word-level
  // vocabulary limits with it (--min-count, --max-vocab), and tied embeddings
  // without one vocabulary for both languages and the vaswani layout (a new run's only).
  void check_subwords(bool resuming) const;
  // A fresh run on parallel files: a side whose language was not asked for takes the language
  // its --train-src/--train-tgt file's name gives (train.es -> es), so that Spanish is not
  // read, and normalised, as the default English; a side whose file names none keeps the
  // default, and one warning says which codes were assumed. One corpus file:
  // languages_from_corpus_name.
  void languages_from_file_names(bool src_lang_asked, bool tgt_lang_asked);
  // Of a corpus file (a TSV): from --valid-src/--valid-tgt's names, else its own
  // (languages_of_corpus_file: "de_en.tsv", Tatoeba's "spa.txt") for its first two columns.
  void languages_from_corpus_name(bool src_lang_asked, bool tgt_lang_asked);
  // Refuses, in one line, a corpus that does not hold together: half a pair of parallel files,
  // one column for both sides, an unknown language code, one language on both sides, or a
  // language written without spaces between words on word-level tokens.
  void check_corpus() const;

  // Every setting: the transformer's (an RNN run's vocabulary sizes and L too) under "model."
  // in checkpoints, the rest under "training." (and "rnn." for an RNN run's). Checkpoints
  // written before a key existed read as the runs that wrote them ran: English -> Spanish from
  // one TSV file, all the pairs' share held out exactly (validation_fraction 0), words, padded
  // to L, masked, untied.
  template <typename Fields>
  static void declare(Seq2SeqTrainSettings& s, Fields& f) {
    f.section("training", [&] {
      auto& d = s.data;
      f.group("Data");
      f(d.data_path, Setting("data_path", "--data",
                             std::string("corpus: Tatoeba/Anki TSV (English<TAB>Spanish) or DLStudio archive (.tar.gz "
                                         "pickle); ") +
                                 data::kDefaultCorpusHelp)
                         .as_path());
      const auto file = [&](std::string& path, const char* key, const char* flag, const char* help) {
        f(path, Setting(key, flag, help).as_path().default_when_absent());
      };
      file(d.train_src, "train_src", "--train-src",
           "parallel files instead of --data: source sentences, one a line (gzip read too)");
      file(d.train_tgt, "train_tgt", "--train-tgt",
           "parallel files: the target sentences, line n translating --train-src's line n");
      file(d.valid_src, "valid_src", "--valid-src",
           "parallel validation files (source) instead of splitting the training pairs");
      file(d.valid_tgt, "valid_tgt", "--valid-tgt", "parallel validation files (target)");
      file(d.test_src, "test_src", "--test-src",
           "parallel test files (source), scored with the final weights at the end");
      file(d.test_tgt, "test_tgt", "--test-tgt", "parallel test files (target)");
      f(d.src_column, Setting("src_column", "--src-column",
                              "TSV: the 1-based column of the source sentence, as cut -f counts (default 1)")
                          .range(1, 1000)
                          .default_when_absent()
                          .fixed());
      f(d.tgt_column,
        Setting("tgt_column", "--tgt-column", "TSV: the 1-based column of the target sentence (default 2)")
            .range(1, 1000)
            .default_when_absent()
            .fixed());
      f(d.src_lang,
        Setting("src_lang", "--src-lang",
                "ISO 639-1 code of the source column/files: its name in printouts and its normalisation (default: "
                "the --train-src file's extension when it is a language code, train.de, else en)")
            .default_when_absent()
            .fixed());
      f(d.tgt_lang, Setting("tgt_lang", "--tgt-lang",
                            "ISO 639-1 code of the target column/files (default: --train-tgt's extension as above, "
                            "else es)")
                        .default_when_absent()
                        .fixed());
      f(d.reverse,
        Setting("reverse", "--reverse", "train the other direction: target column/files -> source (recorded)")
            .as_switch()
            .default_when_absent()
            .fixed());
      f(d.max_words, Setting("max_words", "--max-words",
                             "longest sentence kept, per side, in words (L = max-words + 2; sentencepiece: L = the "
                             "longest kept side in pieces + 2)")
                         .range(1, 1000)
                         .fixed());
      f(d.min_count, Setting("min_count", "--min-count",
                             "word level: a training word seen fewer than N times reads as <unk> (default 1: "
                             "every word)")
                         .range(1, 1000000000)
                         .default_when_absent()
                         .fixed());
      f(d.max_vocab, Setting("max_vocab", "--max-vocab",
                             "word level: the N most frequent training words of each language, the others <unk> "
                             "(default 0: all)")
                         .range(0, 1000000000)
                         .default_when_absent()
                         .fixed());
      f(d.split_seed, Setting("split_seed", "--split-seed", "seed of the validation split (default 1234)")
                          .range(0, 18446744073709551615.0)
                          .fixed());
      f(d.validation_pairs, Setting("validation_pairs", "--validation-pairs", "the most pairs held out (default 2000)")
                                .range(0, 1000000000)
                                .fixed());
      f(d.validation_fraction,
        Setting("validation_fraction", "--validation-fraction",
                "share of the pairs held out for validation, split by source sentence, at most --validation-pairs of "
                "them (default 0.1; 0: exactly --validation-pairs)")
            .range(0, 0.9)
            .when_absent("0")
            .fixed());
      f(s.dlstudio_loss,
        Setting("dlstudio_loss", "--dlstudio-loss", "DLStudio's loss: EOS padding counted, NLL summed over positions")
            .fixed());
      declare_tokenizer(d.subword_units, d.subwords, f);
      f(d.subwords.joint,
        Setting("subwords.joint", "--joint-vocab",
                "sentencepiece: one model and vocabulary for both languages (default: one per language)")
            .as_switch()
            .default_when_absent()
            .fixed());
      declare_init_vocab(
          s.init_vocab, f,
          "with --init-from: extend (the parent's vocabularies, then this data's new words), parent (its "
          "alone: new words are <unk>) or data (this data's alone); sentencepiece: extend is the parent's "
          "models");

      f.group("Model");
      f.property(
          Setting("architecture", "--architecture",
                  "transformer (DLStudio's), or rnn-attention: the RNN encoder-decoder with attention that "
                  "came before it (--rnn-*, --attention-*; --preset rnn-bahdanau, rnn-luong)")
              .one_of(kArchitectureNames.names())
              .when_absent("transformer")
              .fixed(),
          [&] { return to_string(s.architecture); },
          [&](const std::string& name) { s.architecture = parse_architecture(name); });
    });
    f.section("model", [&] { Seq2SeqConfig::declare(s.model, f); });
    f.section("training", [&] {
      f.group("Training");
      declare_epochs(s.epochs, s.batch_size, "pairs", f);
      f(s.max_tokens, Setting("max_tokens", "--max-tokens",
                              "batches of pairs of similar length filled to N tokens (rows x longest side) instead of "
                              "--batch-size pairs; the loss per token; vaswani layout (0: off)")
                          .range(0, 100000000)
                          .default_when_absent()
                          .fixed());
      f(s.length_buckets,
        Setting("length_buckets", "--length-buckets",
                "batches of similar lengths, each padded to its own longest sentence, not to L (vaswani layout; "
                "recorded in the checkpoint)")
            .as_switch()
            .default_when_absent()
            .in_group("Data"));
      f(s.static_shapes, Setting("static_shapes", "--static-shapes",
                                 "every batch --batch rows (the last filled with masked rows) and, with "
                                 "--length-buckets, 4, 8, ... or L columns; the same loss and gradients, for a "
                                 "captured step's replay (CUDA graphs); off by default")
                             .as_switch()
                             .default_when_absent()
                             .in_group("Data"));
      f.section("schedule", [&] { LrSchedule::declare(s.schedule, f); });
      f.section("optimizer", [&] { OptimizerSettings::declare(s.optimizer, f); });
      declare_smoothing_and_seed(s.label_smoothing, s.seed, "initialisation, batch order and dropout", f);

      f.group("Output");
      f.section("selection", [&] { SelectionSettings::declare(s.selection, f, {"bleu", "chrf", "loss"}); });
      f(s.samples,
        Setting("samples", "--samples", "validation pairs translated and printed at the end").range(0, 1000000));
      f(s.bleu_sentences,
        Setting("bleu_sentences", "--bleu-sentences", "validation sentences decoded for BLEU each epoch (0: all)")
            .range(0, 1000000000));
      f.section("run", [&] { RunSettings::declare(s.run, f); });
    });
    // Written only by rnn-attention runs (to_settings), read as these defaults otherwise.
    f.section("rnn", [&] { declare_rnn(s, f); });
  }

  template <typename Fields>
  static void declare_rnn(Seq2SeqTrainSettings& s, Fields& f) {
    auto& rnn = s.rnn;
    f.group("RNN encoder-decoder (--architecture rnn-attention)");
    f.property(
        Setting("cell", "--rnn-cell", "gru or lstm, in the encoder and the decoder")
            .one_of(kRnnCellNames.names())
            .default_when_absent()
            .fixed(),
        [&] { return to_string(rnn.cell); }, [&](const std::string& name) { rnn.cell = parse_rnn_cell(name); });
    f(rnn.bidirectional, Setting("bidirectional", "--rnn-bidirectional",
                                 "true: the encoder reads both ways, its outputs 2H wide (false: one way)")
                             .default_when_absent()
                             .fixed());
    f(rnn.embedding_size, Setting("embedding_size", "--rnn-embedding-size", "E, each word's embedding")
                              .range(1, 65536)
                              .default_when_absent()
                              .fixed());
    f(rnn.hidden_size, Setting("hidden_size", "--rnn-hidden-size", "H, the state of every RNN layer")
                           .range(1, 65536)
                           .default_when_absent()
                           .fixed());
    f(rnn.layers,
      Setting("layers", "--rnn-layers", "stacked RNN layers, each side").range(1, 64).default_when_absent().fixed());
    f.property(
        Setting("score", "--attention-score",
                "dot, scaled-dot (need a one-way encoder), general (bilinear) or additive (Bahdanau's "
                "v.tanh(W k + V q))")
            .one_of(kAttentionScoreNames.names())
            .default_when_absent()
            .fixed(),
        [&] { return to_string(rnn.score); },
        [&](const std::string& name) { rnn.score = parse_attention_score(name); });
    f.property(
        Setting("placement", "--attention-placement",
                "bahdanau (attention before the RNN step) or luong (after it, with input feeding)")
            .one_of(kAttentionPlacementNames.names())
            .default_when_absent()
            .fixed(),
        [&] { return to_string(rnn.placement); },
        [&](const std::string& name) { rnn.placement = parse_attention_placement(name); });
    f(rnn.attention_size, Setting("attention_size", "--attention-size", "additive attention's width A (0: H)")
                              .range(0, 65536)
                              .default_when_absent()
                              .fixed());
    f(rnn.dropout, Setting("dropout", "--rnn-dropout", "dropout on the embeddings and on what the output layer reads")
                       .range(0, 0.99)
                       .default_when_absent()
                       .fixed());
    f(s.teacher_forcing, Setting("teacher_forcing", "--teacher-forcing",
                                 "probability that a training position reads the gold previous word, not the "
                                 "model's own prediction (1: always)")
                             .range(0, 1)
                             .default_when_absent());
  }

  // The keys seq2seq checkpoints have always had: the model under "model.", everything else
  // under "training.", "rnn." for an RNN run only.
  util::KeyValues to_settings() const;
  // Throws on a missing or malformed setting (KeyValues' errors name it).
  static Seq2SeqTrainSettings from_settings(const util::KeyValues& settings);
};

}  // namespace dls::settings

// lm_train: trains a decoder-only (GPT-style) language model -- the MasterDecoderWithMasking
// stack without cross-attention -- on next-token prediction over sentences.
//
//   lm_train --data sentences.txt                 one sentence per line, Spanish normalisation
//   lm_train --data spa.txt --side en             the English side of a TSV corpus
//   lm_train --tokenizer sentencepiece            subword units (SentencePiece, kept in the checkpoint)
//   lm_train --data book.txt --block-size 256 --tokenizer char
//                                                 running text in context windows, characters as tokens
//   lm_train --resume runs/lm                     continue the newest checkpoint of a run
//   lm_train --data mine.txt --init-from runs/lm  fine-tune: its model and vocabulary, extended
//   checkpoint_eval generate runs/lm "yo"        text (checkpoint_eval report: perplexities)
#include <string>
#include <utility>

#include <CLI/CLI.hpp>

#include "dls/checkpoint/lm_checkpoint.h"
#include "dls/cli/declared_flags.h"
#include "dls/cli/run_flags.h"
#include "dls/data/data_folder.h"
#include "dls/train/tasks/lm_presets.h"
#include "dls/train/tasks/lm_trainer.h"
#include "dls/util/blas_kernels.h"
#include "dls/util/thread_policy.h"
#include "init_from_parent.h"

using dls::settings::LmTrainSettings;

int main(int argc, char** argv) {
  dls::util::choose_blas_kernels(argv);  // first of all: may start the program again (blas_kernels.h)
  CLI::App app{
      "Train a decoder-only (GPT-style) language model: DLStudio's MasterDecoderWithMasking without\n"
      "cross-attention, on next-token prediction over sentences, or over running text in context\n"
      "windows (--block-size; characters as tokens with --tokenizer char). A preset gives every\n"
      "setting; each flag below overrides one."};
  app.get_formatter()->column_width(36);
  dls::cli::Overrides<LmTrainSettings> overrides;
  std::string preset = "cpu";
  dls::settings::Invocation invocation;

  dls::cli::add_declared_flags(app, overrides, "Data");
  app.add_option("--preset", preset,
                 "cpu (a small model for a 2-core CPU) or tiny (smoke tests), the files data/presets/lm/NAME.toml "
                 "(your own: --config FILE)")
      ->capture_default_str()
      ->check(CLI::IsMember(dls::train::lm_preset_names()))
      ->group("Training");
  overrides.record("--preset", [](const auto& s) { return s.preset; });
  dls::cli::add_option_flags(app, invocation, ~0u, "Training");

  if (const auto stop = dls::cli::parse_trainer_command_line(app, "lm_train", argc, argv)) return *stop;
  return dls::cli::exit_status_of_training([&] {
    const int threads = dls::cli::configure_invocation(invocation);
    dls::checkpoint::OpenedCheckpoints opened;  // read once: here for the settings, then by the trainer
    const auto read = [](const auto& reader) { return dls::checkpoint::read_lm_contents(reader).settings; };
    const auto fresh = [&] {
      auto settings = dls::train::lm_preset(preset);
      settings.data.path = dls::data::default_corpus();
      if (const auto parent =
              dls::apps::init_from_parent(overrides, dls::checkpoint::kLmCheckpointKind, read, opened.init_from)) {
        settings.model = parent->second.model;  // its shape (the vocabulary and L come from the data)
        LmTrainSettings flags;
        dls::cli::apply_overrides(overrides, flags);
        if (flags.init_vocab != dls::settings::InitVocab::kData) {  // its tokens, so that its vocabulary serves
          settings.data.subword_units = parent->second.data.subword_units;
          settings.data.char_units = parent->second.data.char_units;
          settings.data.subwords = parent->second.data.subwords;
        }
      }
      return settings;
    };
    auto [before_flags, settings] = dls::cli::settings_from_flags(
        app, overrides, invocation, opened.resume, dls::checkpoint::kLmCheckpointKind, read, fresh, {"--preset"});
    dls::apps::check_init_vocab_flag(app, settings, !invocation.resume.empty());
    if (settings.data.path.empty()) throw std::runtime_error(dls::data::no_corpus_message());
    settings.check_data(before_flags, !invocation.resume.empty());
    settings.model.transformer().validate();  // before the data are read
    dls::cli::finish_run_settings(app, settings.run, invocation,
                                  dls::util::default_batch_chunks(settings.model.transformer().flattened(), threads),
                                  dls::cli::resolved_config(overrides, settings, "lm_train"));
    return dls::cli::print_training_result(invocation, dls::train::train_lm(settings, std::move(opened)), settings.run);
  });
}

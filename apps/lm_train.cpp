// lm_train: trains a decoder-only (GPT-style) language model -- the MasterDecoderWithMasking
// stack without cross-attention -- on next-token prediction over sentences.
//
//   lm_train --data sentences.txt                 one sentence per line, Spanish normalisation
//   lm_train --data spa.txt --side en             the English side of a TSV corpus
//   lm_train --tokenizer sentencepiece            subword units (SentencePiece, kept in the checkpoint)
//   lm_train --data book.txt --block-size 256 --tokenizer char
//                                                 running text in context windows, characters as tokens
//   lm_train --resume runs/lm                     continue the newest checkpoint of a run
//   checkpoint_eval runs/lm --generate "yo"       perplexity table, then text
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <iostream>
#include <string>

#include <CLI/CLI.hpp>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include "command_line.h"
#include "cli_overrides.h"
#include "config_file.h"
#include "default_corpus.h"
#include "error_line.h"
#include "run_flags.h"
#include "declared_flags.h"
#include "dls/checkpoint/lm_checkpoint.h"
#include "dls/util/thread_policy.h"
#include "dls/train/tasks/lm_presets.h"
#include "dls/train/tasks/lm_trainer.h"
#include "dls/train/stop_signals.h"
#include "dls/util/json.h"
#include "dls/util/blas_kernels.h"
#include "dls/util/runtime.h"

namespace {

using dls::settings::LmTrainSettings;
using Overrides = dls::apps::Overrides<dls::settings::LmTrainSettings>;

// Refuses subword flags that would be ignored (one line each).
void check_subword_flags(const dls::data::LmDataSettings& data, bool resuming) {
  // By value, not by count: a config.toml written by a word-level run lists them at their defaults.
  const dls::data::SubwordOptions defaults;
  if (data.subword_units || resuming) return;
  if (data.subwords.kind != defaults.kind) throw std::runtime_error("--spm-model: needs --tokenizer sentencepiece");
  if (data.subwords.vocab_size != defaults.vocab_size)
    throw std::runtime_error("--vocab-size: needs --tokenizer sentencepiece");
}

// Refuses flags that the data's form would ignore: sentence flags on running text and back.
// By value, not by count: a config.toml lists every setting at its value.
void check_running_text_flags(const dls::data::LmDataSettings& before, const dls::data::LmDataSettings& data) {
  const bool running = data.block_size > 0;
  if (running && data.max_words != before.max_words)
    throw std::runtime_error("--max-words: sentences only; running text (--block-size) is read in windows");
  if (running && data.validation_sentences != before.validation_sentences)
    throw std::runtime_error("--validation-sentences: sentences only; running text holds out --validation-fraction");
  if (!running && data.validation_fraction != before.validation_fraction)
    throw std::runtime_error("--validation-fraction: needs --block-size (sentences hold out --validation-sentences)");
}

void print_json(const dls::train::LmTrainResult& r, const std::string& precision) {
  dls::util::JsonWriter json;
  json.begin_object()
      .key("sentences_per_s")
      .value(r.sentences_per_s)
      .key("initial_val_perplexity")
      .value(r.initial_val_perplexity)
      .key("val_loss")
      .value(r.val_nll)
      .key("val_perplexity")
      .value(r.val_perplexity)
      .key("val_word_perplexity")
      .value(r.val_word_perplexity)
      .key("vocab_size")
      .value(r.vocab_size);
  dls::apps::end_run_json(json, r, precision);
  std::cout << json.str() << std::endl;
}

}  // namespace

int main(int argc, char** argv) {
  dls::util::choose_blas_kernels(argv);  // first of all: may start the program again (blas_kernels.h)
  CLI::App app{
      "Train a decoder-only (GPT-style) language model: DLStudio's MasterDecoderWithMasking without\n"
      "cross-attention, on next-token prediction over sentences, or over running text in context\n"
      "windows (--block-size; characters as tokens with --tokenizer char). A preset gives every\n"
      "setting; each flag below overrides one."};
  app.footer(dls::apps::kTrainerExitStatus);
  app.get_formatter()->column_width(36);
  Overrides overrides;
  std::string preset = "cpu";
  dls::apps::InvocationFlags invocation;

  dls::apps::add_declared_flags(app, overrides, "Data");
  dls::apps::mention_default_corpus(app);
  app.add_option("--preset", preset,
                 "cpu (a small model for a 2-core CPU) or tiny (smoke tests), the files data/presets/lm/NAME.toml "
                 "(your own: --config FILE)")
      ->capture_default_str()
      ->check(CLI::IsMember(dls::train::lm_preset_names()))
      ->group("Training");
  overrides.record("--preset", [](const auto& s) { return s.preset; });
  dls::apps::add_invocation_flags(app, invocation, "Training", "Output");

  dls::apps::add_version_flag(app, "lm_train");
  dls::apps::keep_invocation_flags_out_of_config(app);
  dls::apps::add_config_option(app);
  if (const auto stop = dls::apps::parse_command_line(app, argc, argv)) return *stop;
  spdlog::set_default_logger(spdlog::stderr_color_mt("lm_train"));
  try {
    const int threads = dls::apps::configure_invocation(invocation);
    LmTrainSettings settings;
    if (!invocation.resume.empty()) {
      settings = dls::checkpoint::read_lm_checkpoint(invocation.resume).settings;
      settings.run = settings.run.resume_defaults();
    } else {
      settings = dls::train::lm_preset(preset);
      settings.data.path = dls::apps::default_corpus();
    }
    const LmTrainSettings before_flags = settings;
    dls::apps::apply_overrides(overrides, settings);
    if (settings.data.path.empty()) {
      throw std::runtime_error(dls::apps::no_corpus_message());
    }
    if (!invocation.resume.empty()) {
      dls::apps::check_fixed_on_resume(app, overrides, before_flags, settings, {"--preset"});
    }
    check_subword_flags(settings.data, !invocation.resume.empty());
    check_running_text_flags(before_flags.data, settings.data);
    settings.model.transformer().validate();  // before the data are read
    dls::apps::finish_run_settings(app, settings.run, invocation,
                                   dls::util::default_batch_chunks(settings.model.transformer().flattened(), threads),
                                   dls::apps::resolved_config(overrides, settings, "lm_train"));
    const auto result = dls::train::train_lm(settings);
    if (invocation.json && result.parallel.rank == 0)
      print_json(result, dls::util::precision_name(settings.run.precision));
    return 0;
  } catch (const dls::train::TrainingInterrupted& stopped) {
    std::fprintf(stderr, "interrupted: %s\n", stopped.what());
    return stopped.exit_status();
  } catch (const dls::train::TrainingDiverged& error) {
    std::fprintf(stderr, "error: %s\n", error.what());
    return 3;
  } catch (const std::exception& error) {
    return dls::apps::print_error_line(error);
  }
}

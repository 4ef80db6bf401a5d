// seq2seq_train: trains DLStudio's English->Spanish transformers (TransformerFG,
// TransformerPreLN) on the Tatoeba/Anki TSV corpus or a DLStudio archive; or any language
// pair, either direction, from TSV columns or parallel files (corpus_flags.h).
//
//   seq2seq_train --data spa.txt                     the preset for the device: cpu on a CPU
//   seq2seq_train --data spa.txt --preset dlstudio   DLStudio's example (FG, 40 epochs)
//   seq2seq_train --resume runs/seq2seq              continue the newest checkpoint of a run
//   seq2seq_train --data spa.txt --reverse           Spanish -> English
//   seq2seq_train --train-src train.de --train-tgt train.en --src-lang de --tgt-lang en
#include <string>
#include <utility>

#include <CLI/CLI.hpp>

#include "dls/cli/declared_flags.h"
#include "dls/cli/run_flags.h"
#include "dls/data/data_folder.h"
#include "dls/train/tasks/seq2seq_presets.h"
#include "dls/train/tasks/seq2seq_trainer.h"
#include "dls/util/blas_kernels.h"
#include "dls/util/thread_policy.h"
#include "corpus_flags.h"
#include "init_from_flags.h"
#include "schedule_flags.h"
#include "seq2seq_resume_flags.h"

using dls::settings::Seq2SeqTrainSettings;

int main(int argc, char** argv) {
  dls::util::choose_blas_kernels(argv);  // first of all: may start the program again (blas_kernels.h)
  CLI::App app{
      "Train DLStudio's English-to-Spanish transformer (TransformerFG or TransformerPreLN), or\n"
      "the RNN encoder-decoder with attention before it (--preset rnn-bahdanau, rnn-luong), on\n"
      "any language pair in either direction (--src-lang, --tgt-lang, --reverse).\n"
      "A preset gives every setting; each flag below overrides one. With --resume the\n"
      "checkpoint's settings are the starting point instead of the preset.\n"};
  app.get_formatter()->column_width(38);
  dls::cli::Overrides<Seq2SeqTrainSettings> overrides;
  std::string preset, variant = "FG";  // preset "": chosen for the device
  dls::settings::Invocation invocation;

  // The Model group's first flags choose the preset; every other flag is a declared setting.
  const std::string model = "Model";
  app.add_option("--preset", preset,
                 "dlstudio (DLStudio's example script), cpu (small, for a 2-core CPU), rnn-bahdanau or rnn-luong "
                 "(RNN encoder-decoders with attention), the files "
                 "data/presets/seq2seq/NAME.toml (your own: --config FILE); default: cpu on a CPU, dlstudio on a GPU")
      ->group(model)
      ->check(CLI::IsMember(dls::train::seq2seq_preset_names()));
  overrides.record("--preset", [&preset](const auto&) { return preset; });
  app.add_option("--variant", variant, "FG (post-LN, TransformerFG) or PreLN (TransformerPreLN)")
      ->capture_default_str()
      ->group(model)
      ->check(CLI::IsMember({"FG", "PreLN"}));
  overrides.record("--variant", [](const auto& s) { return dls::to_string(s.model.transformer().variant()); });
  dls::cli::add_declared_flags(app, overrides, "Data");
  std::string dlstudio_vocab;
  app.add_option("--dlstudio-vocab", dlstudio_vocab,
                 "DLStudio archive: also print DLStudio's parameter counts with its vocabularies (no <pad>/<unk>)")
      ->group("Output");
  dls::cli::add_option_flags(app, invocation, ~0u, "Training");

  if (const auto stop = dls::cli::parse_trainer_command_line(app, "seq2seq_train", argc, argv)) return *stop;
  return dls::cli::exit_status_of_training([&] {
    const int threads = dls::cli::configure_invocation(invocation);
    const bool resuming = !invocation.resume.empty();
    dls::checkpoint::OpenedCheckpoints opened;  // read once: here for the settings, then by the trainer
    const auto read = [](const auto& reader) { return dls::checkpoint::read_seq2seq_info(reader).settings; };
    const auto fresh = [&] {
      dls::settings::Seq2SeqTrainSettings flags_alone;  // the device the flags ask for
      dls::cli::apply_overrides(overrides, flags_alone);
      auto settings = dls::train::new_run_preset(preset, dls::parse_variant(variant), flags_alone.run.device);
      settings.data.data_path = dls::data::default_corpus();
      if (const auto parent =
              dls::apps::init_from_parent(overrides, dls::checkpoint::kSeq2SeqKind, read, opened.init_from))
        dls::apps::take_parent_model(app, settings, *parent, flags_alone, variant);
      return settings;
    };
    auto [before_flags, setup] = dls::cli::settings_from_flags(
        app, overrides, invocation, opened.resume, dls::checkpoint::kSeq2SeqKind, read, fresh, {"--variant"});
    if (resuming) dls::apps::check_start_flags_on_resume(app, invocation.resume, preset, variant, before_flags);
    if (resuming && preset.empty()) preset = dls::apps::preset_of_run(invocation.resume);
    dls::apps::check_init_vocab_flag(app, setup, resuming);
    if (!resuming) setup.languages_from_file_names(app.count("--src-lang") > 0, app.count("--tgt-lang") > 0);
    dls::apps::check_corpus_flags(app, setup);
    if (setup.data.data_path.empty() && setup.data.train_src.empty())
      throw std::runtime_error(dls::data::no_corpus_message());
    setup.check_architecture(before_flags);
    dls::apps::check_variant_for_architecture(app, variant, setup.architecture);
    dls::apps::check_schedule_flags(app, setup.schedule);
    setup.check_subwords(resuming);
    const bool flattened =
        setup.architecture == dls::Architecture::kTransformer && setup.model.transformer().flattened();
    if (dls::util::keeps_freed_memory(flattened)) dls::util::keep_freed_memory();
    dls::cli::finish_run_settings(app, setup.run, invocation, dls::util::default_batch_chunks(flattened, threads),
                                  dls::cli::resolved_config(overrides, setup, "seq2seq_train"));
    return dls::cli::print_training_result(
        invocation, dls::train::train_seq2seq(setup, dlstudio_vocab, std::move(opened)), setup.run);
  });
}

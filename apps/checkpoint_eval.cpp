// checkpoint_eval: evaluates the checkpoints of a training run -- seq2seq runs (BLEU of
// every checkpoint, divergence, sample translations, translating your own sentences,
// attention maps), ViT runs (DLStudio's per-class accuracy and confusion matrix) and
// language models (perplexity, generation) -- and scores plain-text translation files.
//
//   checkpoint_eval report runs/seq2seq                BLEU table over every checkpoint
//   checkpoint_eval translate runs/seq2seq "i am hungry"
//   checkpoint_eval report runs/vit                    accuracy and confusion matrix
//   checkpoint_eval classify runs/vit cat.jpg          top-5 classes of your own image
//   checkpoint_eval generate runs/lm "yo"              language model: text
//   checkpoint_eval average runs/seq2seq 3             the average of the newest 3 (then report it)
//   checkpoint_eval report runs/seq2seq --weights trained
//                                                      an --ema-decay run's trained weights, not the average
//   checkpoint_eval score hyp.txt --ref ref.txt        BLEU of a translation file
//   checkpoint_eval import --dlstudio-encoder F --dlstudio-decoder F ... --dlstudio-vocab ARCHIVE
//                                                      DLStudio's state dicts as a checkpoint
//   checkpoint_eval export runs/seq2seq DIR            the newest checkpoint as DLStudio's files
//
// The one-command form of earlier versions (`checkpoint_eval RUN --translate "..."`, RUN
// alone for the report) still works: its flags say the job, and a note names the subcommand.
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <string>

#include <CLI/CLI.hpp>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include "dls/cli/error_line.h"
#include "dls/report/eval_jobs.h"
#include "dls/util/blas_kernels.h"
#include "dls/util/runtime.h"
#include "eval_flags.h"

namespace {

const char* const kDescription =
    "Evaluate the checkpoints of a seq2seq, ViT or language-model run (the checkpoint says which),\n"
    "translate sentences, or score a translation file. Models are rebuilt from the checkpoints alone.\n";

}  // namespace

int main(int argc, char** argv) {
  dls::util::choose_blas_kernels(argv);  // first of all: may start the program again (blas_kernels.h)
  // `checkpoint_eval VERB ...` parses the rest as VERB's command line; anything else is the
  // one-command form.
  const auto job = argc > 1 ? dls::report::eval_job_named(argv[1]) : dls::apps::EvalJob::kAny;
  const bool verb = job != dls::apps::EvalJob::kAny;
  // Options before the subcommand ("--threads 1 generate RUN hi") would be read in the
  // one-command form, whose error ("unexpected argument(s) hi RUN") does not say why.
  for (int i = 2; !verb && argc > 1 && argv[1][0] == '-' && i < argc; ++i) {
    if (dls::report::eval_job_named(argv[i]) == dls::apps::EvalJob::kAny) continue;
    std::fprintf(stderr, "error: '%s' is a subcommand and comes first: checkpoint_eval %s [options] (see --help)\n",
                 argv[i], argv[i]);
    return 1;
  }
  std::error_code missing;
  if (!verb && argc > 1 && argv[1][0] != '-' && !std::filesystem::exists(argv[1], missing)) {  // "gnerate"
    const auto near = dls::report::closest_eval_verb(argv[1]);
    if (!near.empty()) {
      std::fprintf(stderr, "error: '%s' is no subcommand, run or file; did you mean '%s'? (see --help)\n", argv[1],
                   near.c_str());
      return 1;
    }
  }
  CLI::App app{kDescription, verb ? std::string("checkpoint_eval ") + argv[1] : "checkpoint_eval"};
  app.footer(dls::apps::exit_status_footer(job));
  app.get_formatter()->column_width(40);
  dls::apps::EvalCommand command;
  dls::apps::add_verb_flags(app, job, command);
  if (const auto stop = dls::cli::parse_command_line(app, argc - (verb ? 1 : 0), argv + (verb ? 1 : 0))) return *stop;
  spdlog::set_default_logger(spdlog::stderr_color_mt("checkpoint_eval"));
  dls::util::set_log_level(command.log_level);
  try {
    command.translation.input_is_terminal = command.translation.prompt = ::isatty(STDIN_FILENO) != 0;
    command.given = dls::apps::given_flags(app);
    const auto outcome = dls::report::run_eval(job, command, std::cin, std::cout, std::cerr);
    if (!verb && outcome.status == 0) {
      const auto note = dls::apps::one_command_form_note(outcome.job);
      if (!note.empty()) spdlog::info("{}", note);
    }
    return dls::cli::status_after_standard_output(outcome.status);
  } catch (const std::exception& error) {
    return dls::cli::print_error_line(error);
  }
}

// checkpoint_eval's command line: the flags of its subcommands (checkpoint_eval report|
// translate|classify|generate|score|average|import|export) and of the one-command form of
// earlier versions (`checkpoint_eval RUN --translate ...`), which takes every flag, made from
// the options EvalCommand declares (report/eval_command.h).
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "dls/cli/command_line.h"
#include "dls/cli/config_file.h"
#include "dls/cli/declared_flags.h"
#include "dls/report/eval_command.h"

namespace dls::apps {

using report::EvalCommand;
using report::EvalJob;
using report::kEvalVerbs;

// The one-line note after a job done in the one-command form: the subcommand that does it.
inline std::string one_command_form_note(EvalJob job) {
  for (const auto& verb : kEvalVerbs) {
    if (verb.job != job || job == EvalJob::kReport) continue;
    const std::string usage = verb.help;
    return std::string("note: this job is now `checkpoint_eval ") + verb.name + " " + usage.substr(0, usage.find(':')) +
           "` (its own --help); the flags used here keep working";
  }
  return "";
}

// --help's exit-status footer of checkpoint_eval's `job`: the one-command form and translate,
// whose sentences can fail one by one, and classify, whose images can, say so.
inline const char* exit_status_footer(EvalJob job) {
  const char* const kPlainExitStatus = "Exit status: 0 done, 1 error, usage errors included (one line on stderr).";

  // The one-command form and translate, whose sentences can fail one by one.
  const char* const kExitStatus =
      "Exit status: 0 done, 1 error, usage errors included (one line on stderr); translate (--translate,\n"
      "--input): 1 also when a sentence could not be translated (blank --input lines are left empty, not\n"
      "errors), --classify when an image could not be. A signal (SIGINT, SIGTERM, SIGHUP) while writing\n"
      "--output leaves no file and ends the program by that signal (a shell reports 128+N: 130 for Ctrl-C).";

  // classify, whose images can fail one by one.
  const char* const kClassifyExitStatus =
      "Exit status: 0 every image classified, 1 error, usage errors included (one line on stderr), or an\n"
      "image that could not be classified (its line on stderr; the others are).";
  if (job == EvalJob::kAny || job == EvalJob::kTranslate) return kExitStatus;
  return job == EvalJob::kClassify ? kClassifyExitStatus : kPlainExitStatus;
}

// `job`'s description and flags: those its job reads (kAny: every flag, and the subcommands
// listed), then --version and --config.
inline void add_verb_flags(CLI::App& app, EvalJob job, EvalCommand& command) {
  std::string verbs;
  for (const auto& verb : kEvalVerbs) {
    if (verb.job == job) app.description(std::string("checkpoint_eval ") + verb.name + " " + verb.help + "\n");
    verbs += "  checkpoint_eval " + std::string(verb.name) + " " + verb.help + "\n";
  }
  if (job == EvalJob::kAny) {
    app.description(app.get_description() + "\nSubcommands (each with its own --help):\n" + verbs +
                    "Without one, RUN and the flags below say the job (RUN alone: report).\n");
  }
  cli::add_option_flags(app, command, report::job_bit(job), "Options");
  cli::add_version_flag(app, "checkpoint_eval");
  cli::add_config_option(app);
}

// The long flags `app` was given, on the command line or in --config's file.
inline std::vector<std::string> given_flags(const CLI::App& app) {
  std::vector<std::string> given;
  for (const auto* option : app.get_options()) {
    if (option->count() > 0 && !option->get_lnames().empty()) given.push_back("--" + option->get_lnames().front());
  }
  return given;
}

}  // namespace dls::apps

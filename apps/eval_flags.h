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

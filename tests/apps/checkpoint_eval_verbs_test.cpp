// checkpoint_eval's subcommands (report, translate, score, average) on a seq2seq run: each
// prints what the one-command form of the same job prints, that form names its subcommand in
// a note, and a subcommand asked for the wrong kind of run or without what it needs stops
// with one line.
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "dls/checkpoint/checkpoint.h"
#include "dls/checkpoint/checkpoint_files.h"
#include "dls/report/eval_jobs.h"
#include "dls/util/file_io.h"
#include "support/error_of.h"
#include "support/program_run.h"
#include "support/seq2seq_runs.h"
#include "util/temp_files.h"

namespace dls::apps::eval_verbs_test {
namespace {

namespace fs = std::filesystem;

// Logs at info level, so that the note the one-command form ends with is seen. Scoring and
// averaging run no model and take no --threads.
test::ProgramRun checkpoint_eval(const std::string& args, const std::string& name) {
  const bool no_model = args.find("score ") == 0 || args.find("--score ") == 0 || args.find("average ") == 0;
  return test::run_program("apps/checkpoint_eval", args + (no_model ? "" : " --threads 1"),
                           "checkpoint_eval_verb_" + name, "", "DLS_LOG_LEVEL=info ");
}

const std::string kNote = "note: this job is now `checkpoint_eval ";

// The BLEU of every checkpoint a --json report scored.
std::vector<double> report_bleu(const test::ProgramRun& run) {
  std::vector<double> bleu;
  for (const auto& checkpoint : nlohmann::json::parse(run.out)["checkpoints"]) bleu.push_back(checkpoint["bleu"]);
  return bleu;
}

TEST(EvalSubcommands, EachPrintsWhatTheOneCommandFormPrints) {
  const auto run = test::trained_seq2seq_run().string();
  const auto legacy = checkpoint_eval(run + " --translate \"I'm here.\" --translate \"the zyxwv is here\"", "legacy");
  ASSERT_EQ(legacy.status, 0) << legacy.err;
  EXPECT_NE(legacy.err.find(kNote + "translate RUN SENTENCE...` (its own --help)"), std::string::npos) << legacy.err;
  const auto translated = checkpoint_eval("translate " + run + " \"I'm here.\" \"the zyxwv is here\"", "translate");
  ASSERT_EQ(translated.status, 0) << translated.err;
  EXPECT_EQ(translated.out, legacy.out);
  EXPECT_EQ(translated.err.find(kNote), std::string::npos) << translated.err;

  const auto dir = test::fresh_temp_dir("checkpoint_eval_verbs");
  test::write_bytes(dir / "src.txt", "I'm here.\n\nthe zyxwv is here\n");
  const auto file = checkpoint_eval("translate " + run + " --beam 2 --input " + (dir / "src.txt").string() +
                                        " --output " + (dir / "hyp.txt").string(),
                                    "input");
  ASSERT_EQ(file.status, 0) << file.err;
  const auto legacy_file = checkpoint_eval(run + " --beam 2 --input " + (dir / "src.txt").string(), "legacy_input");
  ASSERT_EQ(legacy_file.status, 0) << legacy_file.err;
  EXPECT_EQ(util::read_file((dir / "hyp.txt").string()), legacy_file.out);

  const auto report = checkpoint_eval("report " + run + " --limit 20 --json", "report");
  ASSERT_EQ(report.status, 0) << report.err;
  const auto legacy_report = checkpoint_eval(run + " --limit 20 --json", "legacy_report");
  ASSERT_EQ(legacy_report.status, 0) << legacy_report.err;
  EXPECT_EQ(report_bleu(report), report_bleu(legacy_report));
  EXPECT_EQ(legacy_report.err.find(kNote), std::string::npos) << "RUN alone is the report\n" << legacy_report.err;

  // score: the hypotheses are its positional.
  test::write_bytes(dir / "ref.txt", "i am here\n\nthe zyxwv is here\n");
  const std::string files = (dir / "hyp.txt").string() + " --ref " + (dir / "ref.txt").string();
  const auto scored = checkpoint_eval("score " + files, "score");
  ASSERT_EQ(scored.status, 0) << scored.err;
  const auto legacy_scored = checkpoint_eval("--score " + files, "legacy_score");
  EXPECT_EQ(scored.out, legacy_scored.out);
  EXPECT_NE(legacy_scored.err.find(kNote + "score HYPOTHESES --ref REFERENCES`"), std::string::npos)
      << legacy_scored.err;

  // average writes the average and nothing else; reporting it scores what --average scored.
  const auto average = (dir / "average.pt").string();
  const auto averaged = checkpoint_eval("average " + run + " 2 --output " + average, "average");
  ASSERT_EQ(averaged.status, 0) << averaged.err;
  EXPECT_TRUE(averaged.out.empty()) << averaged.out;
  EXPECT_TRUE(fs::exists(average));
  const auto legacy_average =
      checkpoint_eval(run + " --average 2 --limit 20 --json --output " + (dir / "legacy.pt").string(), "legacy_avg");
  ASSERT_EQ(legacy_average.status, 0) << legacy_average.err;
  EXPECT_EQ(report_bleu(checkpoint_eval("report " + average + " --limit 20 --json", "report_average")),
            report_bleu(legacy_average));
}

// --log-level holds through the jobs (the library's reports and the translator set the
// threads, not the log level): at error no log line ("[HH:MM:SS] info ...") is written; the
// jobs' own messages on stderr (the model translating, the progress line) are not logs.
TEST(EvalSubcommands, TheLogLevelAskedHoldsThroughEveryJob) {
  const auto run = test::trained_seq2seq_run().string();
  for (const std::string& args : {"translate " + run + " \"I'm here.\"", "report " + run + " --limit 5",
                                  run + " --translate \"I'm here.\"", run + " --limit 5"}) {
    const auto at = [&](const std::string& level) {
      // DLS_LOG_LEVEL (which the test environment sets) would win over the flag: unset.
      return test::run_program("apps/checkpoint_eval", args + " --threads 1 --log-level " + level,
                               "checkpoint_eval_verb_level", "", "env -u DLS_LOG_LEVEL ");
    };
    const auto quiet = at("error"), loud = at("info");
    EXPECT_EQ(quiet.status, 0) << args << "\n" << quiet.err;
    EXPECT_EQ(quiet.err.find("] info "), std::string::npos) << args << "\n" << quiet.err;
    if (args.find("report ") == 0) {
      std::vector<std::string> names;
      for (const auto& file : checkpoint::find_checkpoints(run)) names.push_back(fs::path(file).filename().string());
      test::expect_progress_per_checkpoint(loud, names, "BLEU ");
    }
  }
}

// `translate RUN` with text piped in translates it, a line for a line (Marian's and
// fairseq-interactive's way), as `translate RUN -` does; at a terminal, with nothing to
// translate, it asks for sentences.
TEST(EvalSubcommands, TranslateReadsPipedTextAndAtATerminalAsksForSentences) {
  const auto run = test::trained_seq2seq_run().string();
  const auto piped =
      test::run_program("apps/checkpoint_eval", "translate " + run + " --threads 1", "checkpoint_eval_verb_piped",
                        "I eat the bread.\n\nWhere is my dog?\n", "", test::Stdin::kPipe);
  ASSERT_EQ(piped.status, 0) << piped.err;
  const auto lines = test::lines_of(piped.out);
  ASSERT_EQ(lines.size(), 3u) << piped.out;
  EXPECT_FALSE(lines[0].empty());
  EXPECT_TRUE(lines[1].empty());
  EXPECT_FALSE(lines[2].empty());
  const auto dash = test::run_program("apps/checkpoint_eval", "translate " + run + " - --threads 1",
                                      "checkpoint_eval_verb_dash", "I eat the bread.\n\nWhere is my dog?\n");
  ASSERT_EQ(dash.status, 0) << dash.err;
  EXPECT_EQ(dash.out, piped.out) << "'-' is standard input, not a sentence";
  report::EvalCommand command;
  command.path = run;
  std::istringstream in;
  std::ostringstream out, messages;
  EXPECT_EQ(
      test::error_of([&] { report::run_eval(report::EvalJob::kTranslate, command, in, out, messages); }, "(no error)"),
      "translate: give sentences, --input FILE or --interactive (or pipe the text in: ... | checkpoint_eval "
      "translate RUN)");
}

// A run's report reads each of its checkpoints once, and its newest once more to learn its
// kind (it read each once more, to tell the run's own from copies); a translation reads its
// one checkpoint once, for the kind and the model (it read the newest for the kind, then best.pt).
TEST(EvalSubcommands, EachCheckpointIsReadOnce) {
  const auto run = test::trained_seq2seq_run().string();
  const auto files_read = [&](report::EvalJob job, report::EvalCommand command) {
    command.path = run;
    command.threads = 1;
    std::istringstream in;
    std::ostringstream out, messages;
    const auto opened_before = checkpoint::CheckpointReader::files_opened();
    report::run_eval(job, command, in, out, messages);
    return checkpoint::CheckpointReader::files_opened() - opened_before;
  };
  report::EvalCommand report;
  report.seq2seq.limit = 10;
  report.seq2seq.output_dir = test::fresh_temp_dir("checkpoint_eval_verb_read_once").string();
  EXPECT_EQ(files_read(report::EvalJob::kReport, report), checkpoint::find_checkpoints(run).size() + 1);
  report::EvalCommand translate;
  translate.translation.sentences = {"I am here."};
  EXPECT_EQ(files_read(report::EvalJob::kTranslate, translate), 1u);
}

TEST(EvalSubcommands, WhatASubcommandCannotDoIsOneLine) {
  const auto run = test::trained_seq2seq_run().string();
  const auto refused = [&](const std::string& args, const std::string& part, const std::string& name) {
    test::expect_one_line_error(test::run_program("apps/checkpoint_eval", args, "checkpoint_eval_verb_no_" + name),
                                part);
  };
  refused("classify " + run + " x.png", "classify: " + run + " is a seq2seq run's, not a vit run's", "classify");
  refused("generate " + run + " hola", "generate: " + run + " is a seq2seq run's, not an lm run's", "generate");
  refused("translate " + run + " hi --output x.txt", "--output: with --input FILE", "output");
  refused("translate " + run + " hi --input x.txt", "--input: not with sentences on the command line", "input_and");
  refused("translate " + run + " --interactive --input x.txt", "--input: not with --interactive", "input_interactive");
  refused("translate " + run + " hi --interactive", "--interactive: not with sentences on the command line",
          "interactive_and");
  refused(run + " --translate hi --interactive", "--interactive: not with sentences on the command line",
          "interactive_and_flag");
  refused("translate " + run + " hi --n-best 2", "--n-best 2: needs --beam K", "n_best");
  refused("report " + run + " --alignments", "unknown option --alignments", "report_alignments");
  refused("score hyp.txt", "--ref is required", "score_ref");
  refused("average " + run, "N is required", "average_n");
  refused("average " + run + " 99", "--average 99 needs that many", "average_99");
  refused("export " + run, "DIR is required", "export_dir");
  refused("import", "import: give DLStudio's files (--dlstudio-*)", "import");
  refused("report", "RUN is required", "report_run");
  // The one-command form takes every flag; one that its job would not read is refused.
  refused(run + " --tokens 5", "--tokens: with --generate", "tokens");
  refused(run + " --count 2", "--count: with --generate", "count");
  refused(run + " --top-k 3", "--top-k: with --generate (language models) or --sample", "top_k");
  // ... also at its default value: a flag given is a flag asked for.
  refused(run + " --tokens 300", "--tokens: with --generate", "tokens_default");
  refused(run + " --temperature 1", "--temperature: with --generate", "temperature_default");
  // --generate's job is generate's: a translation's or a report's flag is refused, not ignored.
  for (const auto& flag : {"--beam 3", "--length-penalty 0.6", "--raw", "--alignments", "--samples 2", "--limit 5"}) {
    refused(run + " --generate hola " + flag,
            std::string(flag).substr(0, std::string(flag).find(' ')) + ": not with --generate", "generate_and");
  }
  // Options before the subcommand: the subcommand is named, not its arguments.
  refused("--threads 1 generate " + run + " hola", "'generate' is a subcommand and comes first", "verb_second");
  // A misspelt subcommand is named with the one meant (it was "unexpected argument(s) hola RUN").
  refused("gnerate " + run + " hola", "'gnerate' is no subcommand, run or file; did you mean 'generate'?", "typo");
  refused("repot " + run, "did you mean 'report'?", "typo_report");
}

}  // namespace
}  // namespace dls::apps::eval_verbs_test

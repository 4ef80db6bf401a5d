// checkpoint_eval's jobs, as the library does them once a command line (or any other front
// end) has filled an EvalCommand: the report over a run's checkpoints, translation,
// classification, generation, scoring text files, averaging, and DLStudio import and export
// -- a subcommand's job, or in the one-command form of earlier versions the job its options
// say. The options' checks that need to know which were given read EvalCommand::given.
#pragma once

#include <array>
#include <cstdint>
#include <iosfwd>
#include <set>
#include <string>
#include <vector>

#include "dls/dlstudio/interop.h"
#include "dls/report/image_classes_report.h"
#include "dls/report/lm_checkpoint_report.h"
#include "dls/report/sentence_translation.h"
#include "dls/report/seq2seq_checkpoint_report.h"
#include "dls/report/vit_checkpoint_report.h"

namespace dls::report {

// What is asked: a subcommand's job, or kAny for the one-command form, whose options say which.
enum class EvalJob { kAny, kReport, kTranslate, kClassify, kGenerate, kScore, kAverage, kImport, kExport };

struct EvalVerb {
  const char* name;
  EvalJob job;
  const char* help;  // "RUN SENTENCE...: translate ..." (its arguments, then what it does)
};

inline constexpr std::array<EvalVerb, 8> kEvalVerbs{{
    {"report", EvalJob::kReport,
     "RUN: every checkpoint's BLEU (seq2seq), accuracy and confusion matrix (ViT) or perplexity (language model)"},
    {"translate", EvalJob::kTranslate,
     "RUN SENTENCE...: translate sentences, a file (--input) or standard input (--interactive)"},
    {"classify", EvalJob::kClassify, "RUN IMAGE...: a ViT's top classes for your own images"},
    {"generate", EvalJob::kGenerate, "RUN PROMPT...: continue prompts with a language model"},
    {"score", EvalJob::kScore, "HYPOTHESES --ref REFERENCES: BLEU, sacreBLEU and chrF of a translation file"},
    {"average", EvalJob::kAverage, "RUN N: write the element-wise mean of the newest N checkpoints"},
    {"import", EvalJob::kImport, "--dlstudio-*: write DLStudio's state dicts as a checkpoint"},
    {"export", EvalJob::kExport, "RUN DIR: write the newest checkpoint as DLStudio's state dicts"},
}};

// The name of `job`'s subcommand ("" for kAny), and the job a name stands for (kAny: none).
std::string eval_verb_name(EvalJob job);
EvalJob eval_job_named(const std::string& word);

// How translations are decoded, as asked: at most one of a beam, sampling and DLStudio's
// one-shot decoding (none: greedy); the beam's penalties and n-best are in the DecodeOptions.
struct DecodeChoice {
  std::int64_t beam = 0;  // 0: not asked
  bool sample = false;
  bool dlstudio_decode = false;
};

struct EvalCommand {
  std::string path;  // RUN: a run directory, its checkpoints/ folder, or one checkpoint file
  bool json = false;
  int threads = 0;
  std::string device = "cpu", precision = "fp32", quantize = "none";
  std::string log_level = "info";  // the program's
  std::string weights = "ema";
  Seq2SeqEvalRequest seq2seq;  // its test set, decoding, samples and seed are shared by every job
  DecodeChoice decoding;
  TranslateRequest translation;  // translation.prompt: whether to prompt for --interactive lines
  std::string attention_maps;
  VitEvalRequest vit;
  ClassifyRequest classify;
  LmEvalRequest lm;
  int average = 0;
  std::string output;  // --average's checkpoint, --input's translations, import's checkpoint
  dlstudio::DLStudioImportRequest dlstudio_import;
  std::string dlstudio_variant = "FG";
  std::string export_dir;
  std::string score_file, smoothing = "none";
  std::vector<std::string> ref_files;
  bool sentence_bleu = false;
  std::set<std::string> given;  // the options given ("--n-best"), for the checks of what goes together
};

struct EvalOutcome {
  int status = 0;
  EvalJob job = EvalJob::kReport;  // the job done (the one-command form's, as its options said)
};

// Does `job` (kAny: as the options say) and returns the exit status: 1 when a sentence of a
// translation failed. Results go to `out`, progress and per-sentence errors to `messages`,
// --interactive reads `in`. Throws std::runtime_error (one line) for anything the user can
// mend.
EvalOutcome run_eval(EvalJob job, EvalCommand& command, std::istream& in, std::ostream& out, std::ostream& messages);

}  // namespace dls::report

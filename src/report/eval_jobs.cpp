#include "dls/report/eval_jobs.h"

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <utility>

#include <spdlog/spdlog.h>

#include "dls/checkpoint/checkpoint.h"
#include "dls/checkpoint/checkpoint_average.h"
#include "dls/checkpoint/checkpoint_files.h"
#include "dls/checkpoint/lm_checkpoint.h"
#include "dls/checkpoint/run_id.h"
#include "dls/dlstudio/vocabularies.h"
#include "dls/eval/bleu.h"
#include "dls/layers/int8_linear.h"
#include "dls/report/text_scoring.h"
#include "dls/util/closest_name.h"
#include "dls/util/device.h"
#include "dls/util/precision.h"
#include "dls/util/runtime.h"
#include "dls/util/utf8.h"

namespace dls::report {

namespace {

// The long flags a declaration visit meets whose subcommands exclude `bit`'s.
struct FlagsNotTaken {
  std::uint32_t bit;
  std::vector<std::string> flags;
  void take(const util::Setting& s) {
    if (s.flag.rfind("--", 0) == 0 && (s.commands & bit) == 0) flags.push_back(s.flag);
  }
  template <typename T>
  void operator()(const T&, const util::Setting& s) {
    take(s);
  }
  template <typename Get, typename Set>
  void property(const util::Setting& s, Get, Set) {
    take(s);
  }
  template <typename Body>
  void section(const std::string&, Body body) {
    body();
  }
  void group(const std::string&) {}
};

checkpoint::Weights weights_read(const EvalCommand& command) { return checkpoint::weights_named(command.weights); }

void score_files(const EvalCommand& command, std::ostream& out) {
  ScoreRequest request;
  request.hypotheses = command.score_file;
  request.references = command.ref_files;
  request.sentence = command.sentence_bleu;
  request.json = command.json;
  request.bleu.smoothing = eval::parse_smoothing(command.smoothing);
  report_text_scores(request, out);
}

// Writes the element-wise mean of RUN's newest `command.average` checkpoints; returns its path.
std::string write_average(const EvalCommand& command, std::ostream& messages) {
  const auto n = static_cast<std::size_t>(command.average);
  if (n < 2) {
    throw std::runtime_error(
        "--average 1: one checkpoint is its own average; give 2 or more, or --with RUN2 ... to "
        "average runs");
  }
  const auto output = command.output.empty() ? checkpoint::average_output(command.path, n) : command.output;
  const auto files = checkpoint::average_newest(command.path, n, output, messages, weights_read(command));
  spdlog::info("wrote {}, the average of {} to {}", output, files.front(), files.back());
  return output;
}

// --with: writes the element-wise mean of the newest `command.average` of RUN and of each run
// named (a model soup) to --output; returns its path.
std::string write_runs_average(const EvalCommand& command, std::ostream& messages) {
  if (command.output.empty()) throw std::runtime_error("--with: give --output, the checkpoint to write");
  std::vector<std::string> runs{command.path};
  runs.insert(runs.end(), command.average_with.begin(), command.average_with.end());
  const auto averaged = checkpoint::average_runs(runs, static_cast<std::size_t>(command.average), command.output,
                                                 messages, weights_read(command));
  spdlog::info("wrote {}, the average of {} checkpoints of {} runs", command.output, averaged.size(), runs.size());
  return command.output;
}

// Whether sentences are given to translate: on the command line, --interactive or --input.
bool asks_to_translate(const TranslateRequest& translation) {
  return !translation.sentences.empty() || translation.interactive || !translation.input_file.empty();
}

// The job a model's checkpoints are asked for: the subcommand's, or, in the one-command form,
// what the options ask of this kind of run.
EvalJob model_job(EvalJob job, const std::string& kind, const EvalCommand& command) {
  const auto& translation = command.translation;
  const bool translating = asks_to_translate(translation);
  if (!translation.input_file.empty() && (!translation.sentences.empty() || translation.interactive)) {
    throw std::runtime_error(std::string("--input: not with ") +
                             (translation.interactive ? "--interactive" : "sentences on the command line") +
                             ": translate one source at a time");
  }
  if (translation.interactive && !translation.sentences.empty()) {  // the sentences were dropped
    throw std::runtime_error("--interactive: not with sentences on the command line: translate one source at a time");
  }
  if (!translation.input_file.empty() && !command.attention_maps.empty() && kind == "seq2seq") {  // drew nothing
    throw std::runtime_error(
        "--attention-maps: of a sentence on the command line or --interactive's first, not --input");
  }
  if (job == EvalJob::kAny) {
    if (command.decoding.sample && kind != "seq2seq")
      throw std::runtime_error("--sample: " + command.path + " is not a translation model's checkpoint");
    if (!command.classify.images.empty() && kind != "vit")
      throw std::runtime_error("--classify: " + command.path + " is not a ViT checkpoint (vit_train's)");
    if (!command.lm.prompts.empty() && kind != "lm")
      throw std::runtime_error("--generate: " + command.path + " is not a language model's checkpoint");
    if (kind == "lm" && !command.lm.prompts.empty()) return EvalJob::kGenerate;
    if (kind == "vit" && !command.classify.images.empty()) return EvalJob::kClassify;
    if (kind == "seq2seq" && translating) return EvalJob::kTranslate;
    return EvalJob::kReport;
  }
  const char* needed = job == EvalJob::kTranslate ? "seq2seq" : job == EvalJob::kClassify ? "vit" : "lm";
  if (job != EvalJob::kReport && kind != needed) {
    const auto a = [](const std::string& k) { return std::string(k == "lm" ? "an " : "a ") + k; };  // "an lm"
    throw std::runtime_error(eval_verb_name(job) + ": " + command.path + " is " + a(kind) + " run's, not " + a(needed) +
                             " run's");
  }
  if (job == EvalJob::kTranslate && !translating)
    throw std::runtime_error(
        "translate: give sentences, --input FILE or --interactive (or pipe the text in: ... | checkpoint_eval "
        "translate RUN)");
  return job;
}

// Sets decode.method (and the beam) from the choice, or says in one line what does not go together.
void settle_decoding(const EvalCommand& command, eval::DecodeOptions& decode) {
  const auto& choice = command.decoding;
  if (choice.sample + (choice.beam > 0) + choice.dlstudio_decode > 1)
    throw std::runtime_error("--sample, --beam and --dlstudio-decode: choose one way to decode");
  // A setting is refused where it cannot act only when it would change something (0: none).
  for (const auto& [penalty, flag] : {std::pair{decode.length_penalty, "--length-penalty"},
                                      std::pair{decode.coverage_penalty, "--coverage-penalty"}}) {
    if (penalty != 0 && choice.beam == 0) throw std::runtime_error(std::string(flag) + ": with --beam K");
  }
  if (decode.n_best > 1 && choice.beam < decode.n_best) {
    throw std::runtime_error("--n-best " + std::to_string(decode.n_best) +
                             ": needs --beam K with K >= N (beam search keeps K hypotheses)");
  }
  decode.method = choice.dlstudio_decode ? eval::DecodeMethod::kDLStudioOneShot
                  : choice.beam > 0      ? eval::DecodeMethod::kBeam
                  : choice.sample        ? eval::DecodeMethod::kSample
                                         : eval::DecodeMethod::kGreedy;
  if (choice.beam > 0) decode.beam_size = choice.beam;
}

// Checks a seq2seq job's options and sets its decoding from them.
void settle_seq2seq_options(EvalJob job, EvalCommand& command) {
  auto& seq2seq = command.seq2seq;
  if (seq2seq.test_src.empty() != seq2seq.test_tgt.empty())
    throw std::runtime_error(seq2seq.test_src.empty() ? "--test-tgt needs --test-src" : "--test-src needs --test-tgt");
  if (!seq2seq.test_src.empty() && !seq2seq.test_file.empty())
    throw std::runtime_error("--test and --test-src: give one test set, a TSV/archive file or parallel files");
  settle_decoding(command, seq2seq.decode);
  seq2seq.decode.sampling = command.lm.sampling;
  seq2seq.decode.sampling.seed = seq2seq.seed;
  if (job != EvalJob::kTranslate) {
    const auto& translation = command.translation;
    for (const auto& [asked, flag] :
         {std::pair{!translation.translator.ensemble.empty(), "--ensemble"},
          std::pair{translation.alignments, "--alignments"}, std::pair{seq2seq.decode.n_best > 1, "--n-best"}}) {
      if (asked) throw std::runtime_error(std::string(flag) + ": with --translate, --input or --interactive");
    }
    if (!command.attention_maps.empty())
      throw std::runtime_error("--attention-maps needs a sentence: add --translate \"...\"");
    return;
  }
  if (command.translation.alignments && seq2seq.decode.n_best > 1)
    throw std::runtime_error("--alignments: not with --n-best (the alignment is the best translation's)");
  if (command.average > 0 && !command.translation.input_file.empty())
    throw std::runtime_error("--input: give --output for the translations, not with --average");
}

// `model`: the checkpoint the job opened (to learn its kind), read once.
int translate(std::unique_ptr<checkpoint::CheckpointReader> model, EvalCommand& command, std::istream& in,
              std::ostream& out, std::ostream& messages) {
  util::RuntimeOptions runtime;
  runtime.threads = command.threads;
  util::configure_runtime(runtime);
  auto& translation = command.translation;
  translation.output_file = command.output;
  translation.decode = command.seq2seq.decode;
  translation.attention_maps_dir = command.attention_maps;
  translation.json = command.json;
  translation.translator.device = command.device;
  translation.translator.weights = weights_read(command);
  // The log-probabilities appear only in JSON and n-best lists (a sentence translated in parts
  // has the sum of its parts'): no extra pass otherwise.
  translation.translator.scores = command.json || translation.decode.n_best > 1;
  return translate_sentences(std::move(model), translation, in, out, messages) == 0 ? 0 : 1;
}

// The report, classification or generation over a language model's or a ViT's checkpoints;
// `model`: the one checkpoint a generation or classification reads, opened by the job.
// Returns the exit status: 1 when an image could not be classified.
int evaluate_lm_or_vit(EvalJob job, const std::string& kind, std::unique_ptr<checkpoint::CheckpointReader> model,
                       const std::vector<std::string>& files, EvalCommand& command, std::ostream& out,
                       std::ostream& messages) {
  if (kind == "lm") {
    // A translation's or an image's flags, which a language model's report would not read.
    for (const auto* flag :
         {"--beam", "--length-penalty", "--coverage-penalty", "--n-best", "--sample", "--dlstudio-decode", "--samples",
          "--test-src", "--test-tgt", "--src-column", "--tgt-column", "--ensemble", "--alignments", "--replace-unk",
          "--attention-maps", "--output-dir", "--data-dir", "--test-subset", "--attention-images"}) {
      if (command.was_given(flag))
        throw std::runtime_error(std::string(flag) + ": not for a language model (" + command.path +
                                 "); its report takes --test, --data, --limit and --json");
    }
    auto& lm = command.lm;
    lm.test_file = command.seq2seq.test_file;
    lm.data_path = command.seq2seq.data_path;
    lm.limit = static_cast<std::int64_t>(command.seq2seq.limit);
    lm.sampling.seed = command.seq2seq.seed;
    lm.json = command.json;
    lm.threads = command.threads;
    lm.device = command.device;
    lm.weights = weights_read(command);
    if (job == EvalJob::kGenerate) {
      generate_lm_text(std::move(model), lm, out, messages);
    } else {
      report_lm_checkpoints(files, lm, out, messages);
    }
  } else if (job == EvalJob::kClassify) {
    command.classify.json = command.json;
    command.classify.device = command.device;
    command.classify.weights = weights_read(command);
    return report_image_classes(std::move(model), command.classify, out, messages) == 0 ? 0 : 1;
  } else {
    auto& vit = command.vit;
    vit.json = command.json;
    vit.attention_maps_dir = command.attention_maps;
    vit.output_dir = command.seq2seq.output_dir;
    vit.threads = command.threads;
    vit.device = command.device;
    vit.weights = weights_read(command);
    report_vit_checkpoints(files, vit, out, messages);
  }
  return 0;
}

}  // namespace

bool EvalCommand::was_given(const std::string& flag) const {
  return std::find(given.begin(), given.end(), flag) != given.end();
}

std::vector<std::string> flags_not_taken_by(EvalJob job) {
  FlagsNotTaken collector{job_bit(job), {}};
  EvalCommand command;
  EvalCommand::declare(command, collector);
  return collector.flags;
}

std::string eval_verb_name(EvalJob job) {
  for (const auto& verb : kEvalVerbs) {
    if (verb.job == job) return verb.name;
  }
  return "";
}

EvalJob eval_job_named(const std::string& word) {
  for (const auto& verb : kEvalVerbs) {
    if (word == verb.name) return verb.job;
  }
  return EvalJob::kAny;
}

std::string closest_eval_verb(const std::string& word) {
  std::vector<std::string> names;
  for (const auto& verb : kEvalVerbs) names.push_back(verb.name);
  return util::closest_name(word, names);
}

EvalOutcome run_eval(EvalJob job, EvalCommand& command, std::istream& in, std::ostream& out, std::ostream& messages) {
  const bool any = job == EvalJob::kAny;
  const bool generating = job == EvalJob::kGenerate || !command.lm.prompts.empty();
  for (const auto* flag : {"--temperature", "--top-k", "--top-p"}) {
    if (command.was_given(flag) && !generating && !command.decoding.sample)
      throw std::runtime_error(std::string(flag) + ": with --generate (language models) or --sample (translations)");
  }
  for (const auto* flag : {"--tokens", "--count"}) {
    if (command.was_given(flag) && !generating) throw std::runtime_error(std::string(flag) + ": with --generate");
  }
  command.lm.tokens_asked = command.was_given("--tokens");
  if (any && generating) {  // the one-command form: what `generate` does not take is for another job
    for (const auto& flag : flags_not_taken_by(EvalJob::kGenerate)) {
      if (command.was_given(flag) && flag != "--generate") {
        throw std::runtime_error(flag +
                                 ": not with --generate (a language model's text; checkpoint_eval generate "
                                 "--help lists its flags)");
      }
    }
  }
  for (const auto& prompt : command.lm.prompts) {  // as translate's sentences: refused, not read as <unk>s
    if (!util::is_valid_utf8(prompt)) throw std::runtime_error("--generate: a prompt is not valid UTF-8");
  }
  if (job == EvalJob::kScore || (any && !command.score_file.empty())) {
    score_files(command, out);
    return {0, EvalJob::kScore};
  }
  if (job == EvalJob::kImport || (any && command.dlstudio_import.requested())) {
    if (!command.path.empty())
      throw std::runtime_error(command.path + ": give a run or DLStudio's files (--dlstudio-*), not both");
    if (!command.dlstudio_import.requested()) throw std::runtime_error("import: give DLStudio's files (--dlstudio-*)");
    command.dlstudio_import.seq2seq.variant = parse_variant(command.dlstudio_variant);
    command.path = dlstudio::import_dlstudio(command.dlstudio_import);
    if (!any) {
      // An export's word lists bring no pairs to score: the test set is the user's.
      const bool word_lists = !dlstudio::word_list_folder(command.dlstudio_import.seq2seq.vocab_archive).empty();
      spdlog::info("evaluate it with: checkpoint_eval report {}{}", command.path,
                   word_lists ? " --test-src FILE --test-tgt FILE" : "");
      return {0, EvalJob::kImport};
    }
  }
  if (command.path.empty()) throw std::runtime_error("give a run directory or checkpoint (or --score FILE --ref FILE)");
  // Decoding and evaluation under autocast (--precision bf16); the fp32 checkpoints load as they are.
  const auto precision = util::parse_precision(command.precision);
  const auto target = util::select_device(command.device);
  util::check_precision(precision, target);
  const util::AutocastScope autocast(util::autocast_for(precision, target));
  auto files = checkpoint::find_checkpoints(command.path);
  if (job == EvalJob::kExport || (any && !command.export_dir.empty())) {
    dlstudio::check_export_folder(command.export_dir);
    const auto newest = checkpoint::open_run_checkpoint(command.path, "", checkpoint::RunCheckpoint::kNewest);
    for (const auto& written : dlstudio::export_dlstudio(newest, command.export_dir, weights_read(command)))
      spdlog::info("wrote {}", written);
    return {0, EvalJob::kExport};
  }
  auto& translation = command.translation;
  if (job == EvalJob::kTranslate && translation.sentences == std::vector<std::string>{"-"}) {
    translation.sentences.clear();  // `translate RUN -`: standard input, as for --input -
    if (!translation.input_file.empty()) throw std::runtime_error("-: standard input, or --input FILE, not both");
    translation.input_file = "-";
  }
  if (job == EvalJob::kTranslate && translation.sentences.empty() && !translation.interactive &&
      translation.input_file.empty() && !translation.input_is_terminal) {
    translation.input_file = "-";  // text piped in
  }
  if (command.average > 0) {
    // The newest N of a run directory are the run's own: another run's (copied in) would join
    // the average as if the run had trained them.
    files = {command.average_with.empty() ? write_average(command, messages) : write_runs_average(command, messages)};
    if (!any) return {0, EvalJob::kAverage};
  } else if (!command.average_with.empty()) {
    throw std::runtime_error("--with: runs averaged with RUN's newest N (--average N)");
  } else if (any && !command.output.empty() && command.translation.input_file.empty()) {
    throw std::runtime_error("--output: only with --average N or --input FILE");
  } else if (job == EvalJob::kTranslate && !command.output.empty() && command.translation.input_file.empty()) {
    throw std::runtime_error("--output: with --input FILE");
  }
  // A job of one model (translate, generate, classify) reads its checkpoint once: for the run's
  // kind, then for the model. The model: RUN's best.pt, else its newest checkpoint of its own
  // (the rule of Translator::load and translate_server), or the average just written.
  std::unique_ptr<checkpoint::CheckpointReader> model;
  const bool one_model =
      job == EvalJob::kTranslate || job == EvalJob::kGenerate || job == EvalJob::kClassify ||
      (any && (asks_to_translate(translation) || !command.lm.prompts.empty() || !command.classify.images.empty()));
  if (one_model) {
    model = std::make_unique<checkpoint::CheckpointReader>(
        checkpoint::open_run_checkpoint(command.average > 0 ? files.back() : command.path));
  }
  const auto kind = model ? model->kind() : checkpoint::run_checkpoints_kind(command.path, files);
  apply_quantize(command.quantize, kind, target, precision != util::Precision::kFp32);
  const auto done = model_job(job, kind, command);
  if (done == EvalJob::kReport) model.reset();
  // A report leaves out the checkpoints another run wrote too, telling them as it reads each
  // file: they would join its table and plot as if the run had trained them.
  if (done == EvalJob::kReport && command.average == 0) {
    command.seq2seq.run = command.lm.run = command.vit.run = checkpoint::RunMembership(command.path);
  }
  if (kind == "lm" || kind == "vit") {
    return {evaluate_lm_or_vit(done, kind, std::move(model), files, command, out, messages), done};
  }
  if (kind != "seq2seq") throw std::runtime_error(files.back() + ": a checkpoint of kind '" + kind + "'");
  settle_seq2seq_options(done, command);
  if (done == EvalJob::kTranslate) return {translate(std::move(model), command, in, out, messages), done};
  auto& seq2seq = command.seq2seq;
  seq2seq.json = command.json;
  seq2seq.threads = command.threads;
  seq2seq.device = command.device;
  seq2seq.weights = weights_read(command);
  report_seq2seq_checkpoints(files, seq2seq, out, messages);
  return {0, done};
}

}  // namespace dls::report

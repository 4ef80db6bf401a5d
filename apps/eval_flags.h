// checkpoint_eval's command line: one EvalCommand filled by flag groups, each declared once
// and shared by the subcommands that use it (checkpoint_eval report|translate|classify|
// generate|score|average|import|export) and by the one-command form of earlier versions
// (`checkpoint_eval RUN --translate ...`), which takes every flag.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli_overrides.h"
#include "command_line.h"
#include "config_file.h"
#include "decode_flags.h"
#include "dls/report/eval_jobs.h"
#include "lm_eval_flags.h"
#include "precision_flag.h"
#include "quantize_flag.h"
#include "translate_flags.h"

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

inline const std::string kSeq2SeqGroup = "Seq2seq checkpoints";

// --test, --test-src, --test-tgt, --src-column, --tgt-column, --data, --limit.
inline void add_test_set_flags(CLI::App& app, report::Seq2SeqEvalRequest& seq2seq) {
  const auto& group = kSeq2SeqGroup;
  app.add_option("--test", seq2seq.test_file,
                 "score this corpus (TSV or DLStudio archive) instead of the validation split")
      ->group(group);
  app.add_option("--test-src", seq2seq.test_src, "score these parallel files instead: source sentences, one a line")
      ->group(group);
  app.add_option("--test-tgt", seq2seq.test_tgt, "parallel test files: the reference translations")->group(group);
  app.add_option("--src-column", seq2seq.src_column, "--test TSV: the source column, 1-based (default: the run's)")
      ->check(CLI::Range(1, 1000))
      ->group(group);
  app.add_option("--tgt-column", seq2seq.tgt_column, "--test TSV: the target column, 1-based (default: the run's)")
      ->check(CLI::Range(1, 1000))
      ->group(group);
  app.add_option("--data", seq2seq.data_path, "the training corpus, if it is no longer where the checkpoint says")
      ->group(group);
  app.add_option("--limit", seq2seq.limit, "score the first N sentences only")
      ->check(in_range(0, 1000000000))
      ->group(group);
}

inline void add_samples_flag(CLI::App& app, report::Seq2SeqEvalRequest& seq2seq) {
  app.add_option("--samples", seq2seq.samples,
                 "print N random pairs translated by the best checkpoint, DLStudio's format")
      ->check(in_range(0, 1000000))
      ->group(kSeq2SeqGroup);
}

inline void add_seed_flag(CLI::App& app, report::Seq2SeqEvalRequest& seq2seq) {
  app.add_option("--seed", seq2seq.seed, "which samples (--samples, --generate) and sampled words (--sample)")
      ->check(in_range(0, 18446744073709551615.0))
      ->group(kSeq2SeqGroup);
}

inline const std::string kAveragingGroup = "Averaging";

inline void add_weights_flag(CLI::App& app, std::string& weights, const std::string& group) {
  app.add_option("--weights", weights,
                 "checkpoints of runs with --ema-decay: ema (the moving average, default) or trained (the weights "
                 "--resume continues)")
      ->check(CLI::IsMember({"ema", "trained"}))
      ->capture_default_str()
      ->group(group);
}

inline void add_average_flag(CLI::App& app, int& average) {
  app.add_option("--average", average,
                 "write the element-wise mean of the newest N checkpoints of RUN (the same model settings) and "
                 "evaluate it instead")
      ->check(in_range(2, 10000))
      ->group(kAveragingGroup);
}

inline void add_output_flag(CLI::App& app, std::string& output, const std::string& help, const std::string& group) {
  app.add_option("--output", output, help)->group(group);
}

inline const std::string kVitGroup = "ViT checkpoints";

// --data-dir, --test-subset, --attention-images.
inline void add_vit_report_flags(CLI::App& app, report::VitEvalRequest& vit) {
  app.add_option("--data-dir", vit.data_dir, "read the test images from here")->group(kVitGroup);
  app.add_option("--test-subset", vit.test_subset, "evaluate on the first N test images")
      ->check(in_range(0, 1000000000))
      ->group(kVitGroup);
  app.add_option("--attention-images", vit.attention_images, "test images in the attention maps")
      ->capture_default_str()
      ->check(in_range(0, 1000))
      ->group(kVitGroup);
}

inline void add_top_flag(CLI::App& app, report::ClassifyRequest& classify) {
  app.add_option("--top", classify.top, "classes shown per image (default 5)")
      ->group(kVitGroup)
      ->check(CLI::Range(1, 1000));
}

inline const std::string kDLStudioGroup = "DLStudio checkpoints (state dicts saved by DLStudio's torch.save)";

// --dlstudio-encoder ... --dlstudio-patch-embedding, --variant, --dlstudio-output.
inline void add_dlstudio_import_flags(CLI::App& app, EvalCommand& command) {
  auto& files = command.dlstudio_import;
  const auto& group = kDLStudioGroup;
  app.add_option("--dlstudio-encoder", files.seq2seq.encoder, "import: the MasterEncoder (encoder_FG_<epoch>)")
      ->group(group);
  app.add_option("--dlstudio-decoder", files.seq2seq.decoder,
                 "import: the MasterDecoderWithMasking (decoder_FG_<epoch>)")
      ->group(group);
  app.add_option("--dlstudio-embeddings-en", files.seq2seq.embeddings_en, "import: embeddings_generator_en_FG_<epoch>")
      ->group(group);
  app.add_option("--dlstudio-embeddings-es", files.seq2seq.embeddings_es, "import: embeddings_generator_es_FG_<epoch>")
      ->group(group);
  app.add_option("--dlstudio-vocab", files.seq2seq.vocab_archive,
                 "import: DLStudio's archive (its vocabularies; its pairs are the data)")
      ->group(group);
  app.add_option("--variant", command.dlstudio_variant,
                 "import: TransformerFG or TransformerPreLN (the weights do not say)")
      ->capture_default_str()
      ->check(CLI::IsMember({"FG", "PreLN"}))
      ->group(group);
  app.add_option("--dlstudio-max-seq-length", files.seq2seq.max_seq_length,
                 "import, position-wise layout: L (the flattened layout's shapes give it)")
      ->capture_default_str()
      ->check(in_range(3, 100000))
      ->group(group);
  app.add_option("--dlstudio-vit", files.vit.network, "import: the visTransformer (checkpoint_0_for_epoch_<n>)")
      ->group(group);
  app.add_option("--dlstudio-patch-embedding", files.vit.patch_embedding,
                 "import: its PatchEmbeddingGenerator (checkpoint_1_for_epoch_<n>)")
      ->group(group);
  app.add_option("--dlstudio-output", files.output, "import: the checkpoint to write")
      ->capture_default_str()
      ->group(group);
}

inline void add_export_flag(CLI::App& app, std::string& export_dir) {
  app.add_option(
         "--export-dlstudio", export_dir,
         "write RUN's newest checkpoint into DIR (new or empty) as DLStudio's state dicts (load_state_dict strict); "
         "seq2seq runs trained with --dlstudio-loss true only (DLStudio pads with EOS)")
      ->group(kDLStudioGroup);
}

// --ref, --sentence, --smoothing (the hypotheses: --score, or score's positional).
inline void add_scoring_flags(CLI::App& app, EvalCommand& command) {
  const std::string group = "Scoring text files";
  app.add_option("--ref", command.ref_files, "reference file (repeatable: several references per line)")->group(group);
  app.add_flag("--sentence", command.sentence_bleu, "also print the sentence BLEU of every line")->group(group);
  app.add_option("--smoothing", command.smoothing, "NLTK smoothing: none, method1 ... method7")
      ->capture_default_str()
      ->check(CLI::IsMember(
          {"none", "method0", "method1", "method2", "method3", "method4", "method5", "method6", "method7"}))
      ->group(group);
}

inline const std::string kOutputGroup = "Output";

inline void add_json_flag(CLI::App& app, bool& json) {
  app.add_flag("--json", json, "one JSON object on stdout (logs on stderr)")->group(kOutputGroup);
}

inline void add_output_dir_flag(CLI::App& app, std::string& output_dir) {
  app.add_option("--output-dir", output_dir, "bleu.csv, plots, confusion matrices (default: the run directory)")
      ->group(kOutputGroup);
}

// A subcommand's group of --weights, --threads, --device, --precision, --quantize.
inline const std::string kModelGroup = "Model";

// --threads, --device, --precision, --quantize: how a model runs.
inline void add_engine_flags(CLI::App& app, EvalCommand& command, const std::string& group) {
  app.add_option("--threads", command.threads, "intra-op threads (default: all cores)")
      ->check(in_range(1, 256))
      ->group(group);
  app.add_option("--device", command.device, "cpu, cuda or auto")
      ->capture_default_str()
      ->check(CLI::IsMember({"cpu", "cuda", "auto"}))
      ->group(group);
  add_precision_flag(app, command.precision, group);
  add_quantize_flag(app, command.quantize, group);
}

// --log-level, --version and --config: every form has them, last.
inline void add_program_flags(CLI::App& app, EvalCommand& command) {
  app.add_option("--log-level", command.log_level, "trace, debug, info, warn, error or off")
      ->capture_default_str()
      ->check(log_levels())
      ->group(kOutputGroup);
  add_version_flag(app, "checkpoint_eval");
  add_config_option(app);
}

inline void add_run_positional(CLI::App& app, std::string& path, bool required) {
  auto* run = app.add_option("RUN", path, "run directory, its checkpoints/ folder, or one checkpoint file");
  if (required) run->required();
}

// A subcommand that runs a model: --weights, --json and how the model runs.
inline void add_model_job_flags(CLI::App& app, EvalCommand& command) {
  add_weights_flag(app, command.weights, kModelGroup);
  add_json_flag(app, command.json);
  add_engine_flags(app, command, kModelGroup);
}

// The one-command form: every flag, RUN optional (--score and the DLStudio import need none).
inline void add_every_flag(CLI::App& app, EvalCommand& command) {
  std::string verbs;
  for (const auto& verb : kEvalVerbs) verbs += "  checkpoint_eval " + std::string(verb.name) + " " + verb.help + "\n";
  app.description(app.get_description() + "\nSubcommands (each with its own --help):\n" + verbs +
                  "Without one, RUN and the flags below say the job (RUN alone: report).\n");
  add_run_positional(app, command.path, false);
  add_test_set_flags(app, command.seq2seq);
  add_decode_flags(app, command.seq2seq.decode, command.decoding, kSeq2SeqGroup);
  add_samples_flag(app, command.seq2seq);
  add_seed_flag(app, command.seq2seq);
  add_translate_flags(app, command.translation, command.attention_maps);
  add_average_flag(app, command.average);
  add_weights_flag(app, command.weights, kAveragingGroup);
  add_output_flag(app, command.output,
                  "--average: the checkpoint to write (default RUN/average_last_N.pt); --input: the translations "
                  "(default: standard output)",
                  kAveragingGroup);
  add_vit_report_flags(app, command.vit);
  app.add_option("--classify", command.classify.images,
                 "classify these images (PNG or JPEG, any size: resized to the model's) with RUN's best.pt (else its "
                 "newest): the top classes with their probabilities")
      ->group(kVitGroup);
  add_top_flag(app, command.classify);
  add_lm_eval_flags(app, command.lm);
  add_dlstudio_import_flags(app, command);
  add_export_flag(app, command.export_dir);
  app.add_option("--score", command.score_file, "hypothesis file, one sentence per line")->group("Scoring text files");
  add_scoring_flags(app, command);
  add_json_flag(app, command.json);
  add_output_dir_flag(app, command.seq2seq.output_dir);
  add_engine_flags(app, command, kOutputGroup);
}

// A subcommand's flags: those its job reads.
inline void add_verb_flags(CLI::App& app, EvalJob job, EvalCommand& command) {
  for (const auto& verb : kEvalVerbs) {
    if (verb.job == job) app.description(std::string("checkpoint_eval ") + verb.name + " " + verb.help + "\n");
  }
  switch (job) {
    case EvalJob::kReport:
      add_run_positional(app, command.path, true);
      add_test_set_flags(app, command.seq2seq);
      add_decode_flags(app, command.seq2seq.decode, command.decoding, kSeq2SeqGroup);
      add_sampling_flags(app, command.lm.sampling);
      add_samples_flag(app, command.seq2seq);
      add_seed_flag(app, command.seq2seq);
      add_vit_report_flags(app, command.vit);
      app.add_option("--attention-maps", command.attention_maps,
                     "ViT: class-token attention over the patches, PNGs written to DIR")
          ->group(kVitGroup);
      add_model_job_flags(app, command);
      add_output_dir_flag(app, command.seq2seq.output_dir);
      break;
    case EvalJob::kTranslate:
      add_run_positional(app, command.path, true);
      app.add_option("SENTENCE", command.translation.sentences,
                     "sentences to translate, in the run's source language, with RUN's best.pt, else its newest "
                     "checkpoint");
      add_translate_flags(app, command.translation, command.attention_maps);
      add_output_flag(app, command.output, "--input: the translations (default: standard output)", kOutputGroup);
      add_decode_flags(app, command.seq2seq.decode, command.decoding, kSeq2SeqGroup);
      add_sampling_flags(app, command.lm.sampling);
      add_seed_flag(app, command.seq2seq);
      add_model_job_flags(app, command);
      break;
    case EvalJob::kClassify:
      add_run_positional(app, command.path, true);
      app.add_option("IMAGE", command.classify.images,
                     "PNG or JPEG files of any size (resized to the model's), classified with RUN's best.pt, else "
                     "its newest checkpoint")
          ->required();
      add_top_flag(app, command.classify);
      add_model_job_flags(app, command);
      break;
    case EvalJob::kGenerate:
      add_run_positional(app, command.path, true);
      app.add_option("PROMPT", command.lm.prompts,
                     "prompts to continue (\"\" for none) with RUN's best.pt, else its newest checkpoint")
          ->required();
      add_generation_flags(app, command.lm);
      add_seed_flag(app, command.seq2seq);
      add_model_job_flags(app, command);
      break;
    case EvalJob::kScore:
      app.add_option("HYPOTHESES", command.score_file, "hypothesis file, one sentence per line")->required();
      add_scoring_flags(app, command);
      app.get_option("--ref")->required();
      add_json_flag(app, command.json);
      break;
    case EvalJob::kAverage:
      add_run_positional(app, command.path, true);
      app.add_option("N", command.average, "how many of the newest checkpoints")->required()->check(in_range(2, 10000));
      add_output_flag(app, command.output, "the checkpoint to write (default RUN/average_last_N.pt)", kOutputGroup);
      add_weights_flag(app, command.weights, kModelGroup);
      break;
    case EvalJob::kImport:
      add_dlstudio_import_flags(app, command);
      break;
    case EvalJob::kExport:
      add_run_positional(app, command.path, true);
      app.add_option("DIR", command.export_dir,
                     "a new or empty folder for DLStudio's state dicts (load_state_dict strict); seq2seq runs trained "
                     "with --dlstudio-loss true only (DLStudio pads with EOS)")
          ->required();
      add_weights_flag(app, command.weights, kModelGroup);
      break;
    case EvalJob::kAny:
      add_every_flag(app, command);
      break;
  }
  add_program_flags(app, command);
}

}  // namespace dls::apps

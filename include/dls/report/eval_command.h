// What checkpoint_eval is asked: its subcommands (jobs) and an EvalCommand holding every
// option, each declared once (util/declared.h) with the subcommands that take it. The
// program's flags and --help are made from that list; report::run_eval (eval_jobs.h) does
// the job.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "dls/checkpoint/checkpoint.h"
#include "dls/dlstudio/interop.h"
#include "dls/layers/int8_linear.h"
#include "dls/report/image_classes_report.h"
#include "dls/report/lm_checkpoint_report.h"
#include "dls/report/sentence_translation.h"
#include "dls/report/seq2seq_checkpoint_report.h"
#include "dls/report/vit_checkpoint_report.h"
#include "dls/util/declared.h"
#include "dls/util/device.h"
#include "dls/util/precision.h"
#include "dls/util/runtime.h"

namespace dls::report {

// What is asked: a subcommand's job, or kAny for the one-command form, whose options say which.
enum class EvalJob { kAny, kReport, kTranslate, kClassify, kGenerate, kScore, kAverage, kImport, kExport };

// The bit of `job` in a declaration's commands (util::Setting::only_in).
constexpr std::uint32_t job_bit(EvalJob job) { return std::uint32_t{1} << static_cast<unsigned>(job); }

struct EvalVerb {
  const char* name;
  EvalJob job;
  const char* help;  // "RUN SENTENCE...: translate ..." (its arguments, then what it does)
};

inline constexpr std::array<EvalVerb, 8> kEvalVerbs{{
    {"report", EvalJob::kReport,
     "RUN: every checkpoint's BLEU (seq2seq), accuracy and confusion matrix (ViT) or perplexity (language model)"},
    {"translate", EvalJob::kTranslate,
     "RUN SENTENCE...: translate sentences, a file (--input), or standard input (--interactive; text piped in is read "
     "as --input -)"},
    {"classify", EvalJob::kClassify, "RUN IMAGE...: a ViT's top classes for your own images"},
    {"generate", EvalJob::kGenerate, "RUN PROMPT...: continue prompts with a language model"},
    {"score", EvalJob::kScore, "HYPOTHESES --ref REFERENCES: BLEU, sacreBLEU and chrF of a translation file"},
    {"average", EvalJob::kAverage, "RUN N: write the element-wise mean of the newest N checkpoints"},
    {"import", EvalJob::kImport, "--dlstudio-*: write DLStudio's state dicts as a checkpoint"},
    {"export", EvalJob::kExport, "RUN DIR: write the newest checkpoint as DLStudio's state dicts"},
}};

// EvalCommand's flags that `job`'s subcommand does not take (positional arguments left out).
std::vector<std::string> flags_not_taken_by(EvalJob job);

// The name of `job`'s subcommand ("" for kAny), and the job a name stands for (kAny: none).
std::string eval_verb_name(EvalJob job);
EvalJob eval_job_named(const std::string& word);
// The subcommand a misspelt `word` is closest to ("gnerate": "generate"); "" when none is close.
std::string closest_eval_verb(const std::string& word);

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
  std::vector<std::string> average_with;  // --with: more runs whose newest N join the average
  std::string output;                     // --average's checkpoint, --input's translations, import's checkpoint
  dlstudio::DLStudioImportRequest dlstudio_import;
  std::string dlstudio_variant = "FG";
  std::string export_dir;
  std::string score_file, smoothing = "none";
  std::vector<std::string> ref_files;
  bool sentence_bleu = false;
  // The flags given (on the command line or in --config's file), which the one-command form's
  // checks read: a flag at its default value is still a flag given.
  std::vector<std::string> given;
  bool was_given(const std::string& flag) const;

  // Every option, in --help's order; `only_in` names the subcommands that take it (kAny, the
  // one-command form, takes every flag but the subcommands' positional arguments).
  template <typename Self, typename Fields>
  static void declare(Self& c, Fields& f) {
    using util::Setting;
    constexpr auto any = job_bit(EvalJob::kAny), report = job_bit(EvalJob::kReport),
                   translate = job_bit(EvalJob::kTranslate), classify = job_bit(EvalJob::kClassify),
                   generate = job_bit(EvalJob::kGenerate), score = job_bit(EvalJob::kScore),
                   average = job_bit(EvalJob::kAverage), import = job_bit(EvalJob::kImport),
                   export_ = job_bit(EvalJob::kExport);
    constexpr auto runs = report | translate | classify | generate | average | export_;
    constexpr auto models = any | report | translate | classify | generate;  // jobs that run a model
    const auto newest = std::string(" with RUN's best.pt, else its newest checkpoint");
    f(c.path, Setting("", "RUN", "run directory, its checkpoints/ folder, or one checkpoint file")
                  .only_in(any | runs)
                  .required(runs));
    f(c.translation.sentences,
      Setting("", "SENTENCE", "sentences to translate, in the run's source language," + newest).only_in(translate));
    f(c.classify.images,
      Setting("", "IMAGE", "PNG or JPEG files of any size (resized to the model's), classified" + newest)
          .only_in(classify)
          .required());
    f(c.lm.prompts, Setting("", "PROMPT", "prompts to continue (\"\" for none)" + newest).only_in(generate).required());
    f(c.score_file, Setting("", "HYPOTHESES", "hypothesis file, one sentence per line").only_in(score).required());
    f(c.average, Setting("", "N", "how many of the newest checkpoints (of each run, with --with)")
                     .range(1, 10000)
                     .only_in(average)
                     .required());
    f(c.export_dir, Setting("", "DIR",
                            "a new or empty folder for DLStudio's state dicts (load_state_dict strict); seq2seq runs "
                            "trained with --dlstudio-loss true only (DLStudio pads with EOS)")
                        .only_in(export_)
                        .required());

    f.group("Seq2seq checkpoints");
    auto& seq2seq = c.seq2seq;
    const auto test_set = any | report;
    f(seq2seq.test_file,
      Setting("", "--test", "score this corpus (TSV or DLStudio archive) instead of the validation split")
          .only_in(test_set));
    f(seq2seq.test_src,
      Setting("", "--test-src", "score these parallel files instead: source sentences, one a line").only_in(test_set));
    f(seq2seq.test_tgt, Setting("", "--test-tgt", "parallel test files: the reference translations").only_in(test_set));
    f(seq2seq.src_column, Setting("", "--src-column", "--test TSV: the source column, 1-based (default: the run's)")
                              .range(1, 1000)
                              .only_in(test_set));
    f(seq2seq.tgt_column, Setting("", "--tgt-column", "--test TSV: the target column, 1-based (default: the run's)")
                              .range(1, 1000)
                              .only_in(test_set));
    f(seq2seq.data_path,
      Setting("", "--data", "the training corpus, if it is no longer where the checkpoint says").only_in(test_set));
    f(seq2seq.limit,
      Setting("", "--limit", "score the first N sentences only (0: all)").range(0, 1000000000).only_in(test_set));
    const auto decoding = any | report | translate;
    f(c.decoding.beam,
      Setting("", "--beam", "beam search with K beams (default: greedy)").range(1, 64).only_in(decoding));
    f(seq2seq.decode.length_penalty, Setting("", "--length-penalty", "beam search: GNMT length penalty alpha (0: none)")
                                         .range(0, 10)
                                         .only_in(decoding));
    f(seq2seq.decode.coverage_penalty,
      Setting("", "--coverage-penalty",
              "beam search: GNMT coverage penalty beta, the finished beams ranked with beta * sum over source words of "
              "log(min(attention received, 1)) (0: none)")
          .range(0, 10)
          .only_in(decoding));
    f(seq2seq.decode.n_best, Setting("", "--n-best",
                                     "with --beam K: the N best translations of each sentence (N <= K), a line "
                                     "'sentence ||| translation ||| log p' each, sentences from 0 (JSON: \"n_best\")")
                                 .range(1, 64)
                                 .only_in(decoding));
    f(seq2seq.decode.replace_unknown,
      Setting("", "--replace-unk",
              "each <unk> in a translation replaced by the source word it is aligned to (the last layer's "
              "cross-attention, as --alignments): names and numbers the vocabulary left out are copied; BLEU too")
          .only_in(decoding));
    f(seq2seq.decode.batch_size,
      Setting("", "--batch-size",
              "sentences decoded together (default 256): fewer for a large model or long sentences on little "
              "memory, more on a GPU (in fp32 the same translations)")
          .range(1, 1000000)
          .only_in(decoding));
    f(c.decoding.sample, Setting("", "--sample",
                                 "draw each word from the model's distribution (back-translation) as --temperature, "
                                 "--top-k and --top-p say, with --seed")
                             .only_in(decoding));
    f(c.decoding.dlstudio_decode,
      Setting("", "--dlstudio-decode", "DLStudio's one-shot decoding, for comparison").only_in(decoding));
    f(seq2seq.samples,
      Setting("", "--samples", "print N random pairs translated by the best checkpoint, DLStudio's format")
          .range(0, 1000000)
          .only_in(any | report));
    f(seq2seq.seed, Setting("", "--seed", "which samples (--samples, --generate) and sampled words (--sample)")
                        .range(0, 18446744073709551615.0)
                        .only_in(any | report | translate | generate));
    auto& translation = c.translation;
    f(translation.sentences,
      Setting("", "--translate", "translate this sentence, in the run's source language (repeatable)," + newest)
          .only_in(any | translate));
    f(translation.interactive,
      Setting("", "--interactive", "translate sentences read from standard input, one per line")
          .only_in(any | translate));
    f(translation.input_file, Setting("", "--input",
                                      "translate every line of FILE (- for standard input; a pipe or FIFO too, read "
                                      "once): exactly one output line per input line (empty for a blank or "
                                      "untranslatable one, reported with its line number; blank lines are not "
                                      "errors), in batches")
                                  .only_in(any | translate));
    f(translation.raw, Setting("", "--raw",
                               "translations as the model writes and BLEU scores them (lowercase words), not "
                               "capitalised and punctuated")
                           .only_in(any | translate));
    f(translation.translator.ensemble, Setting("", "--ensemble",
                                               "decode with these checkpoints too (runs or files, same vocabularies "
                                               "and L), their log-probabilities averaged at each step with RUN's")
                                           .only_in(any | translate));
    f(translation.alignments, Setting("", "--alignments",
                                      "each translation's word alignment from the last layer's cross-attention, "
                                      "'source-target' pairs from 0 after ' ||| ' (JSON: \"alignment\")")
                                  .only_in(any | translate));

    f.group("Language-model checkpoints");
    auto& lm = c.lm;
    f(lm.prompts, Setting("", "--generate",
                          "continue this prompt (repeatable; \"\" for none)" + newest + ", using cached keys/values")
                      .only_in(any));
    const auto sampling = any | report | translate | generate;
    f(lm.sampling.temperature, Setting("", "--temperature", "--generate, --sample: divides the logits (0: greedy)")
                                   .range(0, 100)
                                   .only_in(sampling));
    f(lm.sampling.top_k, Setting("", "--top-k", "--generate, --sample: sample among the K most probable words (0: all)")
                             .range(0, 1000000000)
                             .only_in(sampling));
    f(lm.sampling.top_p, Setting("", "--top-p",
                                 "--generate, --sample: sample among the fewest most probable words whose probability "
                                 "reaches P (1: all)")
                             .range(1e-9, 1)
                             .only_in(sampling));
    f(lm.tokens, Setting("", "--tokens",
                         "--generate on a running-text run (--block-size): tokens (characters, words or pieces) to "
                         "generate; past the model's block it reads the latest block")
                     .range(1, 1000000)
                     .only_in(any | generate));
    f(lm.samples, Setting("", "--count", "--generate: texts per prompt (sample i draws with --seed + i)")
                      .range(1, 10000)
                      .only_in(any | generate));

    f.group("ViT checkpoints");
    f(c.vit.data_dir, Setting("", "--data-dir", "read the test images from here").only_in(any | report));
    f(c.vit.test_subset,
      Setting("", "--test-subset", "evaluate on N test images (0: all; of an image folder, N drawn across its classes)")
          .range(0, 1000000000)
          .only_in(any | report));
    f(c.vit.attention_images,
      Setting("", "--attention-images", "test images in the attention maps").range(0, 1000).only_in(any | report));
    f(c.classify.images, Setting("", "--classify",
                                 "classify these images (PNG or JPEG, any size: resized to the model's)" + newest +
                                     ": the top classes with their probabilities")
                             .only_in(any));
    f(c.classify.top, Setting("", "--top", "classes shown per image").range(1, 1000).only_in(any | classify));

    f.group("Averaging");
    f(c.average, Setting("", "--average",
                         "write the element-wise mean of the newest N checkpoints of RUN (the same model settings) "
                         "and evaluate it instead")
                     .range(1, 10000)
                     .only_in(any));
    f(c.average_with, Setting("", "--with",
                              "average: the newest N of these runs (or files) too -- runs fine-tuned from one parent, "
                              "or a run and its parent (a model soup); give --output")
                          .only_in(any | average));

    f.group("DLStudio checkpoints (state dicts saved by DLStudio's torch.save)");
    auto& files = c.dlstudio_import;
    const auto importing = any | import;
    f(files.seq2seq.encoder,
      Setting("", "--dlstudio-encoder", "import: the MasterEncoder (encoder_FG_<epoch>)").only_in(importing));
    f(files.seq2seq.decoder,
      Setting("", "--dlstudio-decoder", "import: the MasterDecoderWithMasking (decoder_FG_<epoch>)")
          .only_in(importing));
    f(files.seq2seq.embeddings_en,
      Setting("", "--dlstudio-embeddings-en", "import: embeddings_generator_en_FG_<epoch>").only_in(importing));
    f(files.seq2seq.embeddings_es,
      Setting("", "--dlstudio-embeddings-es", "import: embeddings_generator_es_FG_<epoch>").only_in(importing));
    f(files.seq2seq.vocab_archive,
      Setting("", "--dlstudio-vocab",
              "import: DLStudio's archive (its vocabularies; its pairs are the data), or the folder of an export's "
              "vocab_en.txt and vocab_es.txt (no pairs)")
          .only_in(importing));
    f(files.seq2seq.src_lang, Setting("", "--src-lang",
                                      "import: the source language's ISO 639 code (default: an export's "
                                      "languages.toml beside its word lists, else en)")
                                  .only_in(importing));
    f(files.seq2seq.tgt_lang,
      Setting("", "--tgt-lang", "import: the target language's code (default: languages.toml, else es)")
          .only_in(importing));
    f(c.dlstudio_variant, Setting("", "--variant", "import: TransformerFG or TransformerPreLN (the weights do not say)")
                              .one_of(kVariantNames.names())
                              .only_in(importing));
    f(files.seq2seq.max_seq_length, Setting("", "--dlstudio-max-seq-length",
                                            "import, position-wise layout: L (the flattened layout's shapes give it)")
                                        .range(3, 100000)
                                        .only_in(importing));
    f(files.vit.network,
      Setting("", "--dlstudio-vit", "import: the visTransformer (checkpoint_0_for_epoch_<n>)").only_in(importing));
    f(files.vit.patch_embedding,
      Setting("", "--dlstudio-patch-embedding", "import: its PatchEmbeddingGenerator (checkpoint_1_for_epoch_<n>)")
          .only_in(importing));
    f(files.output, Setting("", "--dlstudio-output", "import: the checkpoint to write").only_in(importing));
    f(c.export_dir, Setting("", "--export-dlstudio",
                            "write RUN's newest checkpoint into DIR (new or empty) as DLStudio's state dicts "
                            "(load_state_dict strict); seq2seq runs trained with --dlstudio-loss true only (DLStudio "
                            "pads with EOS)")
                        .only_in(any));

    f.group("Scoring text files");
    f(c.score_file, Setting("", "--score", "hypothesis file, one sentence per line").only_in(any));
    f(c.ref_files, Setting("", "--ref", "reference file (repeatable: several references per line)")
                       .only_in(any | score)
                       .required(score));
    f(c.sentence_bleu, Setting("", "--sentence", "also print the sentence BLEU of every line").only_in(any | score));
    f(c.smoothing,
      Setting("", "--smoothing", "NLTK smoothing: none, method1 ... method7")
          .one_of({"none", "method0", "method1", "method2", "method3", "method4", "method5", "method6", "method7"})
          .only_in(any | score));

    f.group("Model");
    f(c.weights, Setting("", "--weights",
                         "checkpoints of runs with --ema-decay: ema (the moving average, default) or trained (the "
                         "weights --resume continues)")
                     .one_of(checkpoint::kWeightsNames.names())
                     .only_in(models | average | export_));
    f(c.threads, Setting("", "--threads", "intra-op threads (default: all cores)").range(1, 256).only_in(models));
    f(c.device, Setting("", "--device", "cpu, cuda or auto").one_of(util::kDeviceNames).only_in(models));
    f(c.precision,
      Setting("", "--precision", util::kPrecisionHelp).one_of(util::kPrecisionNames.names()).only_in(models));
    f(c.quantize, Setting("", "--quantize", kQuantizeHelp).one_of(kQuantizeNames).only_in(models));

    f.group("Output");
    f(c.json, Setting("", "--json", "one JSON object on stdout (logs on stderr)").only_in(models | score));
    f(seq2seq.output_dir,
      Setting("", "--output-dir", "bleu.csv, plots, confusion matrices (default: the run directory)")
          .only_in(any | report));
    f(c.output, Setting("", "--output",
                        "average: the checkpoint to write (default RUN/average_last_N.pt); translate --input: the "
                        "translations (default: standard output)")
                    .only_in(any | translate | average));
    f(c.attention_maps, Setting("", "--attention-maps",
                                "PNGs written to DIR: a seq2seq run's attention heat maps of the first sentence "
                                "translated; a ViT's class-token attention over the patches (report)")
                            .only_in(any | report | translate));
    f(c.log_level, Setting("", "--log-level", "trace, debug, info, warn, error or off").one_of(util::kLogLevels));
  }
};

}  // namespace dls::report

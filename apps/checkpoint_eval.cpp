// checkpoint_eval: evaluates the checkpoints of a training run -- seq2seq runs (BLEU of
// every checkpoint, divergence, sample translations, translating your own sentences,
// attention maps) and ViT runs (DLStudio's per-class accuracy and confusion matrix) -- and
// scores plain-text translation files.
//
//   checkpoint_eval runs/seq2seq                       BLEU table over every checkpoint
//   checkpoint_eval runs/seq2seq --translate "i am hungry"
//   checkpoint_eval runs/vit                           accuracy and confusion matrix
//   checkpoint_eval runs/vit --classify cat.jpg        top-5 classes of your own image
//   checkpoint_eval runs/lm --generate "yo"            language model: text (no flag: perplexities)
//   checkpoint_eval runs/seq2seq --average 3           average the newest 3, evaluate the average
//   checkpoint_eval runs/seq2seq --weights trained     an --ema-decay run's trained weights, not the average
//   checkpoint_eval --score hyp.txt --ref ref.txt      BLEU of a translation file
//   checkpoint_eval --dlstudio-encoder F --dlstudio-decoder F ... --dlstudio-vocab ARCHIVE
//                                                      import DLStudio's state dicts, evaluate them
//   checkpoint_eval runs/seq2seq --export-dlstudio DIR write the newest checkpoint as DLStudio's files
#include <unistd.h>

#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include "dls/checkpoint/checkpoint.h"
#include "dls/checkpoint/checkpoint_average.h"
#include "dls/checkpoint/checkpoint_files.h"
#include "dls/checkpoint/dlstudio_interop.h"
#include "dls/eval/bleu.h"
#include "dls/eval/sentence_translation.h"
#include "dls/eval/seq2seq_checkpoint_report.h"
#include "dls/eval/text_scoring.h"
#include "dls/eval/image_classes_report.h"
#include "dls/eval/vit_checkpoint_report.h"
#include "dls/util/precision.h"
#include "dls/util/blas_kernels.h"
#include "dls/util/runtime.h"
#include "dls/util/device.h"
#include "command_line.h"
#include "config_file.h"
#include "decode_flags.h"
#include "cli_overrides.h"
#include "error_line.h"
#include "lm_eval_flags.h"
#include "translate_flags.h"
#include "precision_flag.h"
#include "quantize_flag.h"

int main(int argc, char** argv) {
  dls::util::choose_blas_kernels(argv);  // first of all: may start the program again (blas_kernels.h)
  CLI::App app{
      "Evaluate the checkpoints of a seq2seq or ViT run (the checkpoint says which), translate\n"
      "sentences, or score a translation file. Models are rebuilt from the checkpoints alone.\n"};
  app.footer(
      "Exit status: 0 done, 1 error, usage errors included (one line on stderr); --translate and --input:\n"
      "1 also when a sentence could not be translated (blank --input lines are left empty, not errors).\n"
      "A signal (SIGINT, SIGTERM, SIGHUP) while writing --output leaves no file and ends the program by\n"
      "that signal (a shell reports 128+N: 130 for Ctrl-C).");
  app.get_formatter()->column_width(40);
  std::string path, score_file, smoothing = "none", log_level = "info", device = "cpu", precision = "fp32",
                                quantize = "none";
  std::vector<std::string> ref_files;
  bool sentence_bleu = false, json = false;
  int threads = 0;
  dls::eval::Seq2SeqEvalRequest seq2seq;
  dls::eval::VitEvalRequest vit;
  dls::eval::LmEvalRequest lm;
  std::string attention_maps;
  int average = 0;
  std::string weights = "ema";
  std::string average_output;

  app.add_option("RUN", path, "run directory, its checkpoints/ folder, or one checkpoint file");
  const std::string s2s = "Seq2seq checkpoints";
  app.add_option("--test", seq2seq.test_file,
                 "score this corpus (TSV or DLStudio archive) instead of the validation split")
      ->group(s2s);
  app.add_option("--test-src", seq2seq.test_src, "score these parallel files instead: source sentences, one a line")
      ->group(s2s);
  app.add_option("--test-tgt", seq2seq.test_tgt, "parallel test files: the reference translations")->group(s2s);
  app.add_option("--src-column", seq2seq.src_column, "--test TSV: the source column, 1-based (default: the run's)")
      ->check(CLI::Range(1, 1000))
      ->group(s2s);
  app.add_option("--tgt-column", seq2seq.tgt_column, "--test TSV: the target column, 1-based (default: the run's)")
      ->check(CLI::Range(1, 1000))
      ->group(s2s);
  app.add_option("--data", seq2seq.data_path, "the training corpus, if it is no longer where the checkpoint says")
      ->group(s2s);
  app.add_option("--limit", seq2seq.limit, "score the first N sentences only")
      ->check(dls::apps::in_range(0, 1000000000))
      ->group(s2s);
  dls::apps::DecodeFlags decoding;
  dls::apps::add_decode_flags(app, seq2seq.decode, decoding, s2s);
  app.add_option("--samples", seq2seq.samples,
                 "print N random pairs translated by the best checkpoint, DLStudio's format")
      ->check(dls::apps::in_range(0, 1000000))
      ->group(s2s);
  app.add_option("--seed", seq2seq.seed, "which samples (--samples, --generate) and sampled words (--sample)")
      ->check(dls::apps::in_range(0, 18446744073709551615.0))
      ->group(s2s);
  dls::eval::TranslateRequest translation;
  dls::apps::add_translate_flags(app, translation, attention_maps);
  const std::string averaging = "Averaging";
  app.add_option("--average", average,
                 "write the element-wise mean of the newest N checkpoints of RUN (the same model settings) and "
                 "evaluate it instead")
      ->check(dls::apps::in_range(2, 10000))
      ->group(averaging);
  app.add_option("--weights", weights,
                 "checkpoints of runs with --ema-decay: ema (the moving average, default) or trained (the weights "
                 "--resume continues)")
      ->check(CLI::IsMember({"ema", "trained"}))
      ->capture_default_str()
      ->group(averaging);
  app.add_option("--output", average_output,
                 "--average: the checkpoint to write (default RUN/average_last_N.pt); --input: the translations "
                 "(default: standard output)")
      ->group(averaging);
  const std::string vit_group = "ViT checkpoints";
  app.add_option("--data-dir", vit.data_dir, "read the test images from here")->group(vit_group);
  app.add_option("--test-subset", vit.test_subset, "evaluate on the first N test images")
      ->check(dls::apps::in_range(0, 1000000000))
      ->group(vit_group);
  dls::eval::ClassifyRequest classify;
  app.add_option("--classify", classify.images,
                 "classify these images (PNG or JPEG, any size: resized to the model's) with RUN's best.pt (else its "
                 "newest): the top classes with their probabilities")
      ->group(vit_group);
  app.add_option("--top", classify.top, "--classify: classes shown per image (default 5)")
      ->group(vit_group)
      ->check(CLI::Range(1, 1000));
  app.add_option("--attention-images", vit.attention_images, "test images in the attention maps")
      ->capture_default_str()
      ->check(dls::apps::in_range(0, 1000))
      ->group(vit_group);
  dls::apps::add_lm_eval_flags(app, lm);
  const std::string dlstudio = "DLStudio checkpoints (state dicts saved by DLStudio's torch.save)";
  dls::checkpoint::DLStudioImportRequest dlstudio_import;
  std::string export_dir, dlstudio_variant = "FG";
  app.add_option("--dlstudio-encoder", dlstudio_import.seq2seq.encoder,
                 "import: the MasterEncoder (encoder_FG_<epoch>)")
      ->group(dlstudio);
  app.add_option("--dlstudio-decoder", dlstudio_import.seq2seq.decoder,
                 "import: the MasterDecoderWithMasking (decoder_FG_<epoch>)")
      ->group(dlstudio);
  app.add_option("--dlstudio-embeddings-en", dlstudio_import.seq2seq.embeddings_en,
                 "import: embeddings_generator_en_FG_<epoch>")
      ->group(dlstudio);
  app.add_option("--dlstudio-embeddings-es", dlstudio_import.seq2seq.embeddings_es,
                 "import: embeddings_generator_es_FG_<epoch>")
      ->group(dlstudio);
  app.add_option("--dlstudio-vocab", dlstudio_import.seq2seq.vocab_archive,
                 "import: DLStudio's archive (its vocabularies; its pairs are the data)")
      ->group(dlstudio);
  app.add_option("--variant", dlstudio_variant, "import: TransformerFG or TransformerPreLN (the weights do not say)")
      ->capture_default_str()
      ->check(CLI::IsMember({"FG", "PreLN"}))
      ->group(dlstudio);
  app.add_option("--dlstudio-max-seq-length", dlstudio_import.seq2seq.max_seq_length,
                 "import, position-wise layout: L (the flattened layout's shapes give it)")
      ->capture_default_str()
      ->check(dls::apps::in_range(3, 100000))
      ->group(dlstudio);
  app.add_option("--dlstudio-vit", dlstudio_import.vit.network,
                 "import: the visTransformer (checkpoint_0_for_epoch_<n>)")
      ->group(dlstudio);
  app.add_option("--dlstudio-patch-embedding", dlstudio_import.vit.patch_embedding,
                 "import: its PatchEmbeddingGenerator (checkpoint_1_for_epoch_<n>)")
      ->group(dlstudio);
  app.add_option("--dlstudio-output", dlstudio_import.output, "import: the checkpoint to write, then evaluated")
      ->capture_default_str()
      ->group(dlstudio);
  app.add_option(
         "--export-dlstudio", export_dir,
         "write RUN's newest checkpoint into DIR (new or empty) as DLStudio's state dicts (load_state_dict strict); "
         "seq2seq runs trained with --dlstudio-loss true only (DLStudio pads with EOS)")
      ->group(dlstudio);
  const std::string scoring = "Scoring text files";
  app.add_option("--score", score_file, "hypothesis file, one sentence per line")->group(scoring);
  app.add_option("--ref", ref_files, "reference file (repeatable: several references per line)")->group(scoring);
  app.add_flag("--sentence", sentence_bleu, "also print the sentence BLEU of every line")->group(scoring);
  app.add_option("--smoothing", smoothing, "NLTK smoothing: none, method1 ... method7")
      ->capture_default_str()
      ->check(CLI::IsMember(
          {"none", "method0", "method1", "method2", "method3", "method4", "method5", "method6", "method7"}))
      ->group(scoring);
  const std::string output = "Output";
  app.add_flag("--json", json, "one JSON object on stdout (logs on stderr)")->group(output);
  app.add_option("--output-dir", seq2seq.output_dir, "bleu.csv, plots, confusion matrices (default: the run directory)")
      ->group(output);
  app.add_option("--threads", threads, "intra-op threads (default: all cores)")
      ->check(dls::apps::in_range(1, 256))
      ->group(output);
  app.add_option("--device", device, "cpu, cuda or auto")
      ->capture_default_str()
      ->check(CLI::IsMember({"cpu", "cuda", "auto"}))
      ->group(output);
  dls::apps::add_precision_flag(app, precision, output);
  dls::apps::add_quantize_flag(app, quantize, output);
  app.add_option("--log-level", log_level, "trace, debug, info, warn, error or off")
      ->capture_default_str()
      ->check(dls::apps::log_levels())
      ->group(output);

  dls::apps::add_version_flag(app, "checkpoint_eval");
  dls::apps::add_config_option(app);
  if (const auto stop = dls::apps::parse_command_line(app, argc, argv)) return *stop;
  spdlog::set_default_logger(spdlog::stderr_color_mt("checkpoint_eval"));
  spdlog::set_level(spdlog::level::from_str(log_level));
  try {
    for (const auto* setting : {"--temperature", "--top-k", "--top-p"}) {
      if (app.count(setting) > 0 && lm.prompts.empty() && !decoding.sample)
        throw std::runtime_error(std::string(setting) +
                                 ": with --generate (language models) or --sample (translations)");
    }
    if (!score_file.empty()) {
      dls::eval::ScoreRequest request;
      request.hypotheses = score_file;
      request.references = ref_files;
      request.sentence = sentence_bleu;
      request.json = json;
      request.bleu.smoothing = dls::eval::parse_smoothing(smoothing);
      dls::eval::report_text_scores(request, std::cout);
      return 0;
    }
    if (dlstudio_import.requested()) {
      if (!path.empty()) throw std::runtime_error(path + ": give a run or DLStudio's files (--dlstudio-*), not both");
      dlstudio_import.seq2seq.variant = dls::parse_variant(dlstudio_variant);
      path = dls::checkpoint::import_dlstudio(dlstudio_import);
    }
    if (path.empty()) throw std::runtime_error("give a run directory or checkpoint (or --score FILE --ref FILE)");
    // Decoding and evaluation under autocast (--precision bf16); the fp32 checkpoints load as they are.
    const auto precision_kind = dls::util::parse_precision(precision);
    const auto target = dls::util::select_device(device);
    dls::util::check_precision(precision_kind, target);
    const dls::util::AutocastScope autocast(dls::util::autocast_for(precision_kind, target));
    const auto weights_read =
        weights == "trained" ? dls::checkpoint::Weights::kTrained : dls::checkpoint::Weights::kEvaluation;
    auto files = dls::checkpoint::find_checkpoints(path);
    if (!export_dir.empty()) {
      for (const auto& written : dls::checkpoint::export_dlstudio(files.back(), export_dir, weights_read))
        spdlog::info("wrote {}", written);
      return 0;
    }
    if (average > 0) {
      if (files.size() < static_cast<std::size_t>(average)) {
        throw std::runtime_error(path + ": " + std::to_string(files.size()) + " checkpoints, --average " +
                                 std::to_string(average) + " needs that many");
      }
      if (average_output.empty()) {
        auto run = std::filesystem::path(files.back()).parent_path();
        if (run.filename() == "checkpoints") run = run.parent_path();
        average_output = (run / ("average_last_" + std::to_string(average) + ".pt")).string();
      }
      files.erase(files.begin(), files.end() - average);
      dls::checkpoint::average_checkpoints(files, average_output, weights_read);
      spdlog::info("wrote {}, the average of {} to {}", average_output, files.front(), files.back());
      files = {average_output};
    } else if (!average_output.empty() && translation.input_file.empty()) {
      throw std::runtime_error("--output: only with --average N or --input FILE");
    }
    // The kind of the run: that of its newest readable checkpoint (an unreadable one among
    // several is reported and skipped later; a single one is an error here).
    std::string kind;
    for (auto it = files.rbegin(); it != files.rend() && kind.empty(); ++it) {
      try {
        kind = dls::checkpoint::CheckpointReader(*it).kind();
      } catch (const dls::checkpoint::CheckpointError&) {
        if (files.size() == 1) throw;
      }
    }
    if (kind.empty())
      throw std::runtime_error(path + ": none of its " + std::to_string(files.size()) + " checkpoints is readable");
    dls::apps::apply_quantize(quantize, kind, target, precision_kind != dls::util::Precision::kFp32);
    // One model for everything that translates or generates: RUN's best.pt, else its newest
    // checkpoint (the rule of Translator::load and translate_server), or the average just written.
    const auto one_model = average > 0 ? files.back() : path;
    if (decoding.sample && kind != "seq2seq")
      throw std::runtime_error("--sample: " + files.back() + " is not a translation model's checkpoint");
    if (!classify.images.empty() && kind != "vit")
      throw std::runtime_error("--classify: " + files.back() + " is not a ViT checkpoint (vit_train's)");
    if (kind == "lm") {
      if (!lm.prompts.empty()) files = {dls::checkpoint::best_or_latest_checkpoint(one_model)};
      lm.test_file = seq2seq.test_file;
      lm.data_path = seq2seq.data_path;
      lm.limit = seq2seq.limit;
      lm.sampling.seed = seq2seq.seed;
      lm.json = json;
      lm.threads = threads;
      lm.device = device;
      lm.weights = weights_read;
      dls::eval::report_lm_checkpoints(files, lm, std::cout, std::cerr);
      return 0;
    }
    if (!lm.prompts.empty())
      throw std::runtime_error("--generate: " + files.back() + " is not a language model's checkpoint");

    if (kind == "vit" && !classify.images.empty()) {
      classify.json = json;
      classify.device = device;
      classify.weights = weights_read;
      dls::eval::report_image_classes(one_model, classify, std::cout);
      return 0;
    }
    if (kind == "vit") {
      vit.json = json;
      vit.attention_maps_dir = attention_maps;
      vit.output_dir = seq2seq.output_dir;
      vit.threads = threads;
      vit.device = device;
      vit.weights = weights_read;
      dls::eval::report_vit_checkpoints(files, vit, std::cout, std::cerr);
      return 0;
    }
    if (kind != "seq2seq") throw std::runtime_error(files.back() + ": a checkpoint of kind '" + kind + "'");
    if (seq2seq.test_src.empty() != seq2seq.test_tgt.empty()) {
      throw std::runtime_error(seq2seq.test_src.empty() ? "--test-tgt needs --test-src"
                                                        : "--test-src needs --test-tgt");
    }
    if (!seq2seq.test_src.empty() && !seq2seq.test_file.empty()) {
      throw std::runtime_error("--test and --test-src: give one test set, a TSV/archive file or parallel files");
    }
    dls::apps::apply_decode_flags(app, decoding, seq2seq.decode);
    seq2seq.decode.sampling = lm.sampling;
    seq2seq.decode.sampling.seed = seq2seq.seed;
    const bool translating =
        !translation.sentences.empty() || translation.interactive || !translation.input_file.empty();
    if (!translating) {
      for (const auto* only : {"--ensemble", "--alignments", "--n-best"}) {
        if (app.count(only) > 0)
          throw std::runtime_error(std::string(only) + ": with --translate, --input or --interactive");
      }
    }
    if (translation.alignments && seq2seq.decode.n_best > 1)
      throw std::runtime_error("--alignments: not with --n-best (the alignment is the best translation's)");
    if (translating) {
      if (average > 0 && !translation.input_file.empty())
        throw std::runtime_error("--input: give --output for the translations, not with --average");
      dls::util::RuntimeOptions runtime;
      runtime.threads = threads;
      dls::util::configure_runtime(runtime);
      translation.prompt = ::isatty(STDIN_FILENO) != 0;
      translation.output_file = average_output;
      translation.decode = seq2seq.decode;
      translation.attention_maps_dir = attention_maps;
      translation.json = json;
      translation.translator.device = device;
      translation.translator.weights = weights_read;
      translation.translator.scores = json;  // the log-probabilities only appear in JSON: no extra pass otherwise
      return dls::eval::translate_sentences(one_model, translation, std::cin, std::cout, std::cerr) == 0 ? 0 : 1;
    }
    if (!attention_maps.empty()) throw std::runtime_error("--attention-maps needs a sentence: add --translate \"...\"");
    seq2seq.json = json;
    seq2seq.threads = threads;
    seq2seq.device = device;
    seq2seq.weights = weights_read;
    dls::eval::report_seq2seq_checkpoints(files, seq2seq, std::cout, std::cerr);
    return 0;
  } catch (const std::exception& error) {
    return dls::apps::print_error_line(error);
  }
}

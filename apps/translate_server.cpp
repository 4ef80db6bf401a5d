// translate_server: serves a trained seq2seq checkpoint over HTTP -- translations (greedy or
// beam, batched dynamically across clients), the attention weights of a translation, the
// model's settings -- and the web page that shows them (docs/serving.md). Given a ViT
// checkpoint it serves image classification and the ViT's attention instead: the kind is
// read from the checkpoint, so one program (and one page) serves both.
//
//   translate_server runs/seq2seq                      127.0.0.1:8080, the run's best checkpoint
//   translate_server runs/seq2seq/checkpoints/epoch_0010.pt --port 0   a free port (printed)
//   curl -s localhost:8080/translate -d '{"sentences": ["I am hungry."]}'
//   translate_server runs/vit; curl -s localhost:8080/classify --data-binary @shirt.png
#include <unistd.h>

#include <iostream>
#include <string>

#include <ATen/Parallel.h>
#include <CLI/CLI.hpp>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include "dls/checkpoint/checkpoint.h"
#include "dls/checkpoint/checkpoint_files.h"
#include "dls/checkpoint/seq2seq_checkpoint.h"
#include "dls/data/languages.h"
#include "dls/eval/image_classifier.h"
#include "dls/eval/translator.h"
#include "dls/serve/page_files.h"
#include "dls/serve/stop_signals.h"
#include "dls/serve/translate_server.h"
#include "dls/util/blas_kernels.h"
#include "dls/util/device.h"
#include "dls/util/runtime.h"
#include "dls/util/thread_policy.h"
#include "command_line.h"
#include "error_line.h"
#include "quantize_flag.h"
#include "server_flags.h"

#ifndef DLS_SOURCE_PAGE_DIR
#define DLS_SOURCE_PAGE_DIR ""
#endif

int main(int argc, char** argv) {
  dls::util::choose_blas_kernels(argv);  // first of all: may start the program again (blas_kernels.h)
  // Before any thread starts: SIGTERM and SIGINT are waited for, not handled (a clean stop).
  dls::serve::block_stop_signals();
  CLI::App app{
      "Serve a trained seq2seq checkpoint over HTTP, translating in the direction its run trained\n"
      "(seq2seq_train's --src-lang, --tgt-lang, --reverse; GET /model names the languages):\n"
      "POST /translate, POST /attention, GET /health, GET /model, and the page at GET /\n"
      "(docs/serving.md). Requests of several clients are decoded together. A ViT checkpoint\n"
      "is served too: POST /classify (a PNG's or JPEG's bytes).\n"
      "Prints 'listening on http://HOST:PORT' when ready; SIGTERM or SIGINT\n"
      "stops it after the requests in flight are answered.\n"};
  app.footer("Exit status: 0 stopped by SIGTERM/SIGINT, 1 error (one line on stderr).");
  app.get_formatter()->column_width(40);
  dls::apps::ServerFlags flags;
  dls::apps::add_server_flags(app, flags);
  dls::apps::add_version_flag(app, "translate_server");
  if (const auto stop = dls::apps::parse_command_line(app, argc, argv)) return *stop;
  spdlog::set_default_logger(spdlog::stderr_color_mt("translate_server"));
  auto& settings = flags.settings;
  try {
    dls::util::RuntimeOptions runtime;
    runtime.threads = flags.threads;
    runtime.log_level = flags.log_level;
    dls::util::configure_runtime(runtime);
    if (flags.no_batching) settings.batching.wait_ms = 0, settings.batching.max_batch = 1;
    const auto which =
        flags.weights == "trained" ? dls::checkpoint::Weights::kTrained : dls::checkpoint::Weights::kEvaluation;
    settings.page_dir = dls::serve::find_page_dir(flags.page_dir, "/proc/self/exe", DLS_SOURCE_PAGE_DIR);
    // The rule of every program that translates (Translator::load, checkpoint_eval --translate).
    const auto file = dls::checkpoint::best_or_latest_checkpoint(flags.checkpoint);
    const auto kind = dls::checkpoint::CheckpointReader(file).kind();
    const auto precision_kind = dls::util::parse_precision(flags.precision);
    const auto target = dls::util::select_device(flags.device);
    dls::util::check_precision(precision_kind, target);
    settings.batching.autocast = dls::util::autocast_for(precision_kind, target);
    dls::apps::apply_quantize(flags.quantize, kind, target, precision_kind != dls::util::Precision::kFp32);
    if (kind == "vit") {
      auto classifier = dls::eval::ImageClassifier::load(file, flags.device, which);
      settings.checkpoint_file = file;
      spdlog::info("serving {} ({}) on {}; page: {}", file, classifier.config().summary(), classifier.device().str(),
                   settings.page_dir.empty() ? "none" : settings.page_dir);
      dls::serve::serve_until_signalled(classifier, settings, std::cout);
      return 0;
    }
    dls::eval::TranslatorOptions options;
    options.device = flags.device;
    options.weights = which;
    auto translator = dls::eval::Translator::load(file, options);
    settings.checkpoint_file = translator.checkpoint_file();
    if (dls::int8_linear_enabled()) {
      translator.translate("warm up");  // makes every weight's int8 form before the first request
      const auto made = dls::int8_weight_stats();
      spdlog::info("int8 weights: {} matrices, {:.1f} MB ({:.1f} MB as fp32)", made.matrices, 1e-6 * made.int8_bytes,
                   1e-6 * made.fp32_bytes);
    }
    // Measured best on 2 cores (docs/serving.md): a batch's chunks on one thread each and, unless
    // --threads says otherwise, one intra-op thread (a lone sentence too: OpenMP's hand-offs
    // cost it more than the second core gives).
    settings.batching.decode_workers = dls::util::batch_chunk_workers(
        translator.device(), flags.decode_workers > 0 ? flags.decode_workers : at::get_num_threads());
    if (flags.threads == 0 && translator.device().is_cpu()) at::set_num_threads(1);
    const auto& languages = translator.model().info.settings.data;
    spdlog::info("serving {} ({}; {}, {} -> {}) on {}; page: {}", translator.checkpoint_file(),
                 dls::checkpoint::progress_summary(translator.model().info.progress),
                 translator.model().info.settings.model_summary(),
                 dls::data::language_name(languages.source_language()),
                 dls::data::language_name(languages.target_language()), translator.device().str(),
                 settings.page_dir.empty() ? "none" : settings.page_dir);
    dls::serve::serve_until_signalled(translator, settings, std::cout);
    return 0;
  } catch (const std::exception& error) {
    return dls::apps::print_error_line(error);
  }
}

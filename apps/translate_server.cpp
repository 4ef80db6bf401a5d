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
#include "cli_overrides.h"
#include "command_line.h"
#include "error_line.h"
#include "precision_flag.h"
#include "quantize_flag.h"

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
  std::string checkpoint, device = "cpu", weights = "ema", log_level = "info", page_dir, quantize = "none",
                          precision = "fp32";
  int threads = 0;
  int decode_workers = 0;  // 0: one per intra-op thread
  bool no_batching = false;
  dls::serve::ServeSettings settings;
  auto& limits = settings.limits;
  auto& batching = settings.batching;
  app.add_option("checkpoint", checkpoint,
                 "a seq2seq or ViT checkpoint, or a run directory (its best.pt, else its newest)")
      ->required();
  const std::string net = "Network";
  app.add_option("--host", settings.host, "address to listen on")->capture_default_str()->group(net);
  app.add_option("--port", settings.port, "port to listen on (0: a free one, printed)")
      ->capture_default_str()
      ->check(dls::apps::in_range(0, 65535))
      ->group(net);
  app.add_option("--page-dir", page_dir,
                 "the web page's folder (default: share/dlstudio-cpp/page beside the program, else the source "
                 "tree's apps/server_page)")
      ->group(net);
  auto& http = settings.http;
  app.add_option("--allow-host", http.allowed_hosts,
                 "a name this server answers to besides localhost names and IP addresses (repeatable; \"*\": any "
                 "Host). Other Host headers: 403, against DNS rebinding")
      ->group(net);
  app.add_option("--connections", http.connections,
                 "connections open at once; one more closes the oldest idle or slow one, else it gets 503")
      ->capture_default_str()
      ->check(dls::apps::in_range(2, 4096))
      ->group(net);
  app.add_option("--read-timeout-s", http.read_timeout_s,
                 "a request's head and body arrive within this, or the connection is closed")
      ->capture_default_str()
      ->check(dls::apps::in_range(0.1, 3600))
      ->group(net);
  app.add_option("--idle-timeout-s", http.idle_timeout_s, "a keep-alive connection without a request closes after this")
      ->capture_default_str()
      ->check(dls::apps::in_range(0.1, 3600))
      ->group(net);
  const std::string limit = "Limits";
  app.add_option("--max-body-bytes", http.max_body_bytes,
                 "larger request bodies are refused (413), whatever their framing, before they are read")
      ->capture_default_str()
      ->check(dls::apps::in_range(64, 1 << 30))
      ->group(limit);
  app.add_option("--max-header-bytes", http.max_header_bytes, "a larger request line and header: 431")
      ->capture_default_str()
      ->check(dls::apps::in_range(1024, 1 << 20))
      ->group(limit);
  app.add_option("--max-headers", http.max_headers, "more header fields: 431")
      ->capture_default_str()
      ->check(dls::apps::in_range(8, 10000))
      ->group(limit);
  app.add_option("--max-sentences", limits.max_sentences, "sentences per /translate request; more: 400")
      ->capture_default_str()
      ->check(dls::apps::in_range(1, 100000))
      ->group(limit);
  app.add_option("--max-sentence-chars", limits.max_sentence_chars, "bytes per sentence; more: 400")
      ->capture_default_str()
      ->check(dls::apps::in_range(1, 1 << 20))
      ->group(limit);
  app.add_option("--max-beam", limits.max_beam, "the largest \"beam\" accepted; more: 400")
      ->capture_default_str()
      ->check(dls::apps::in_range(1, 64))
      ->group(limit);
  app.add_option("--max-image-pixels", limits.max_image_pixels,
                 "width x height an image sent to /classify may claim (read from its header before decoding); "
                 "more: 413")
      ->capture_default_str()
      ->check(dls::apps::in_range(1LL, 1LL << 30))
      ->group(limit);
  app.add_option("--queue", batching.max_queued, "requests waiting for the model at most; more: 503 with Retry-After")
      ->capture_default_str()
      ->check(dls::apps::in_range(1, 1000000))
      ->group(limit);
  app.add_option("--request-timeout-s", limits.request_timeout_s, "a request not answered by then: 504")
      ->capture_default_str()
      ->check(dls::apps::in_range(0.001, 86400))
      ->group(limit);
  const std::string batch = "Dynamic batching";
  app.add_option("--batch-wait-ms", batching.wait_ms,
                 "after a request, wait this long for others to decode with it (0: no wait)")
      ->capture_default_str()
      ->check(dls::apps::in_range(0, 10000))
      ->group(batch);
  app.add_option("--max-batch", batching.max_batch, "sentences decoded together at most")
      ->capture_default_str()
      ->check(dls::apps::in_range(1, 100000))
      ->group(batch);
  app.add_option("--max-batch-tokens", batching.max_batch_tokens,
                 "source tokens (words or subword pieces) decoded together at most; 0: no limit (one request is "
                 "never split)")
      ->capture_default_str()
      ->check(dls::apps::in_range(0, 100000000))
      ->group(batch);
  app.add_option("--decode-workers", decode_workers,
                 "cut each batch into N chunks decoded on N threads of one intra-op thread each (CPU; 1: one pass "
                 "with --threads intra-op threads; default: one per core, which docs/serving.md measures best)")
      ->check(dls::apps::in_range(1, 256))
      ->group(batch);
  app.add_flag("--no-batching", no_batching, "every request decoded on its own (--batch-wait-ms 0 --max-batch 1)")
      ->group(batch);
  const std::string model = "Model";
  app.add_option("--device", device, "cpu, cuda or auto")
      ->capture_default_str()
      ->check(CLI::IsMember({"cpu", "cuda", "auto"}))
      ->group(model);
  app.add_option("--threads", threads,
                 "intra-op threads (default: all cores; translating on the CPU: 1, and --decode-workers one per core)")
      ->check(dls::apps::in_range(1, 256))
      ->group(model);
  app.add_option("--weights", weights, "runs with --ema-decay: ema (the moving average) or trained")
      ->capture_default_str()
      ->check(CLI::IsMember({"ema", "trained"}))
      ->group(model);
  dls::apps::add_precision_flag(app, precision, model);
  dls::apps::add_quantize_flag(app, quantize, model);
  app.add_option("--log-level", log_level, "trace, debug (every request), info, warn, error or off")
      ->capture_default_str()
      ->check(dls::apps::log_levels())
      ->group(model);
  dls::apps::add_version_flag(app, "translate_server");
  if (const auto stop = dls::apps::parse_command_line(app, argc, argv)) return *stop;
  spdlog::set_default_logger(spdlog::stderr_color_mt("translate_server"));
  try {
    dls::util::RuntimeOptions runtime;
    runtime.threads = threads;
    runtime.log_level = log_level;
    dls::util::configure_runtime(runtime);
    if (no_batching) batching.wait_ms = 0, batching.max_batch = 1;
    const auto which =
        weights == "trained" ? dls::checkpoint::Weights::kTrained : dls::checkpoint::Weights::kEvaluation;
    settings.page_dir = dls::serve::find_page_dir(page_dir, "/proc/self/exe", DLS_SOURCE_PAGE_DIR);
    // The rule of every program that translates (Translator::load, checkpoint_eval --translate).
    const auto file = dls::checkpoint::best_or_latest_checkpoint(checkpoint);
    const auto kind = dls::checkpoint::CheckpointReader(file).kind();
    const auto precision_kind = dls::util::parse_precision(precision);
    const auto target = dls::util::select_device(device);
    dls::util::check_precision(precision_kind, target);
    batching.autocast = dls::util::autocast_for(precision_kind, target);
    dls::apps::apply_quantize(quantize, kind, target, precision_kind != dls::util::Precision::kFp32);
    if (kind == "vit") {
      auto classifier = dls::eval::ImageClassifier::load(file, device, which);
      settings.checkpoint_file = file;
      spdlog::info("serving {} ({}) on {}; page: {}", file, classifier.config().summary(), classifier.device().str(),
                   settings.page_dir.empty() ? "none" : settings.page_dir);
      dls::serve::serve_until_signalled(classifier, settings, std::cout);
      return 0;
    }
    dls::eval::TranslatorOptions options;
    options.device = device;
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
    batching.decode_workers = dls::util::batch_chunk_workers(
        translator.device(), decode_workers > 0 ? decode_workers : at::get_num_threads());
    if (threads == 0 && translator.device().is_cpu()) at::set_num_threads(1);
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

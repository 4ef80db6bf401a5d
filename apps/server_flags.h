// translate_server's flags: where it listens, the limits that keep one client from starving
// the others, dynamic batching (all into serve::ServeSettings), and how the model runs.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "dls/serve/serve_checkpoint.h"
#include "dls/serve/serve_settings.h"
#include "cli_overrides.h"
#include "command_line.h"
#include "precision_flag.h"
#include "quantize_flag.h"

namespace dls::apps {

struct ServerFlags {
  serve::ServedModel model;  // the checkpoint, device, precision, quantize, decode workers
  std::string weights = "ema", log_level = "info", page_dir;
  int threads = 0;
  bool no_batching = false;
  serve::ServeSettings settings;
};

inline void add_server_flags(CLI::App& app, ServerFlags& flags) {
  auto& settings = flags.settings;
  auto& http = settings.http;
  auto& limits = settings.limits;
  auto& batching = settings.batching;
  app.add_option("checkpoint", flags.model.checkpoint,
                 "a seq2seq or ViT checkpoint, or a run directory (its best.pt, else its newest)")
      ->required();
  const std::string net = "Network";
  app.add_option("--host", settings.host, "address to listen on")->capture_default_str()->group(net);
  app.add_option("--port", settings.port, "port to listen on (0: a free one, printed)")
      ->capture_default_str()
      ->check(in_range(0, 65535))
      ->group(net);
  app.add_option("--page-dir", flags.page_dir,
                 "the web page's folder (default: share/dlstudio-cpp/page beside the program, else the source "
                 "tree's apps/server_page)")
      ->group(net);
  app.add_option("--allow-host", http.allowed_hosts,
                 "a name this server answers to besides localhost names and IP addresses (repeatable; \"*\": any "
                 "Host). Other Host headers: 403, against DNS rebinding")
      ->group(net);
  app.add_option("--connections", http.connections,
                 "connections open at once; one more closes the oldest idle or slow one, else it gets 503")
      ->capture_default_str()
      ->check(in_range(2, 4096))
      ->group(net);
  app.add_option("--read-timeout-s", http.read_timeout_s,
                 "a request's head and body arrive within this, or the connection is closed")
      ->capture_default_str()
      ->check(in_range(0.1, 3600))
      ->group(net);
  app.add_option("--idle-timeout-s", http.idle_timeout_s, "a keep-alive connection without a request closes after this")
      ->capture_default_str()
      ->check(in_range(0.1, 3600))
      ->group(net);
  const std::string limit = "Limits";
  app.add_option("--max-body-bytes", http.max_body_bytes,
                 "larger request bodies are refused (413), whatever their framing, before they are read")
      ->capture_default_str()
      ->check(in_range(64, 1 << 30))
      ->group(limit);
  app.add_option("--max-header-bytes", http.max_header_bytes, "a larger request line and header: 431")
      ->capture_default_str()
      ->check(in_range(1024, 1 << 20))
      ->group(limit);
  app.add_option("--max-headers", http.max_headers, "more header fields: 431")
      ->capture_default_str()
      ->check(in_range(8, 10000))
      ->group(limit);
  app.add_option("--max-sentences", limits.max_sentences, "sentences per /translate request; more: 400")
      ->capture_default_str()
      ->check(in_range(1, 100000))
      ->group(limit);
  app.add_option("--max-sentence-chars", limits.max_sentence_chars, "bytes per sentence; more: 400")
      ->capture_default_str()
      ->check(in_range(1, 1 << 20))
      ->group(limit);
  app.add_option("--max-beam", limits.max_beam, "the largest \"beam\" accepted; more: 400")
      ->capture_default_str()
      ->check(in_range(1, 64))
      ->group(limit);
  app.add_option("--max-image-pixels", limits.max_image_pixels,
                 "width x height an image sent to /classify may claim (read from its header before decoding); "
                 "more: 413")
      ->capture_default_str()
      ->check(in_range(1LL, 1LL << 30))
      ->group(limit);
  app.add_option("--queue", batching.max_queued, "requests waiting for the model at most; more: 503 with Retry-After")
      ->capture_default_str()
      ->check(in_range(1, 1000000))
      ->group(limit);
  app.add_option("--request-timeout-s", limits.request_timeout_s, "a request not answered by then: 504")
      ->capture_default_str()
      ->check(in_range(0.001, 86400))
      ->group(limit);
  const std::string batch = "Dynamic batching";
  app.add_option("--batch-wait-ms", batching.wait_ms,
                 "after a request, wait this long for others to decode with it (0: no wait)")
      ->capture_default_str()
      ->check(in_range(0, 10000))
      ->group(batch);
  app.add_option("--max-batch", batching.max_batch, "sentences decoded together at most")
      ->capture_default_str()
      ->check(in_range(1, 100000))
      ->group(batch);
  app.add_option("--max-batch-tokens", batching.max_batch_tokens,
                 "source tokens (words or subword pieces) decoded together at most; 0: no limit (one request is "
                 "never split)")
      ->capture_default_str()
      ->check(in_range(0, 100000000))
      ->group(batch);
  app.add_option("--decode-workers", flags.model.decode_workers,
                 "cut each batch into N chunks decoded on N threads of one intra-op thread each (CPU; 1: one pass "
                 "with --threads intra-op threads; default: one per core, which docs/serving.md measures best)")
      ->check(in_range(1, 256))
      ->group(batch);
  app.add_flag("--no-batching", flags.no_batching, "every request decoded on its own (--batch-wait-ms 0 --max-batch 1)")
      ->group(batch);
  const std::string model = "Model";
  app.add_option("--device", flags.model.device, "cpu, cuda or auto")
      ->capture_default_str()
      ->check(CLI::IsMember({"cpu", "cuda", "auto"}))
      ->group(model);
  app.add_option("--threads", flags.threads,
                 "intra-op threads (default: all cores; translating on the CPU: 1, and --decode-workers one per core)")
      ->check(in_range(1, 256))
      ->group(model);
  app.add_option("--weights", flags.weights, "runs with --ema-decay: ema (the moving average) or trained")
      ->capture_default_str()
      ->check(CLI::IsMember({"ema", "trained"}))
      ->group(model);
  add_precision_flag(app, flags.model.precision, model);
  add_quantize_flag(app, flags.model.quantize, model);
  app.add_option("--log-level", flags.log_level, "trace, debug (every request), info, warn, error or off")
      ->capture_default_str()
      ->check(log_levels())
      ->group(model);
}

}  // namespace dls::apps

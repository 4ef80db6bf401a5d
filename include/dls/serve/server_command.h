// translate_server's command: the checkpoint it serves and how the model runs
// (serve_checkpoint.h), where it listens and the limits that keep one client from starving
// the others (serve_settings.h). Each option is declared once (util/declared.h); the
// program's flags and --help are made from the list.
#pragma once

#include <iosfwd>
#include <string>

#include "dls/checkpoint/checkpoint.h"
#include "dls/layers/int8_linear.h"
#include "dls/serve/serve_checkpoint.h"
#include "dls/serve/serve_settings.h"
#include "dls/util/declared.h"
#include "dls/util/device.h"
#include "dls/util/precision.h"
#include "dls/util/runtime.h"

namespace dls::serve {

struct ServerCommand {
  ServedModel model;  // the checkpoint, device, precision, quantize, decode workers
  std::string weights = "ema", log_level = "info", page_dir;
  int threads = 0;  // 0: all cores (translating on the CPU: 1, and a decode worker per core)
  bool no_batching = false;
  ServeSettings settings;

  template <typename Self, typename Fields>
  static void declare(Self& c, Fields& f) {
    using util::Setting;
    auto& http = c.settings.http;
    auto& limits = c.settings.limits;
    auto& batching = c.settings.batching;
    f(c.model.checkpoint,
      Setting("", "checkpoint", "a seq2seq or ViT checkpoint, or a run directory (its best.pt, else its newest)")
          .required());
    f.group("Network");
    f(c.settings.host, Setting("", "--host", "address to listen on"));
    f(c.settings.port, Setting("", "--port", "port to listen on (0: a free one, printed)").range(0, 65535));
    f(c.page_dir, Setting("", "--page-dir",
                          "the web page's folder (default: share/dlstudio-cpp/page beside the program, else the "
                          "source tree's apps/server_page)"));
    f(http.allowed_hosts, Setting("", "--allow-host",
                                  "a name this server answers to besides localhost names and IP addresses "
                                  "(repeatable; \"*\": any Host). Other Host headers: 403, against DNS rebinding"));
    f(http.connections, Setting("", "--connections",
                                "connections open at once; one more closes the oldest idle or slow one, else it "
                                "gets 503")
                            .range(2, 4096));
    f(http.read_timeout_s,
      Setting("", "--read-timeout-s", "a request's head and body arrive within this, or the connection is closed")
          .range(0.1, 3600));
    f(http.idle_timeout_s,
      Setting("", "--idle-timeout-s", "a keep-alive connection without a request closes after this").range(0.1, 3600));
    f.group("Limits");
    f(http.max_body_bytes,
      Setting("", "--max-body-bytes",
              "larger request bodies are refused (413), whatever their framing, before they are read")
          .range(64, 1 << 30));
    f(http.max_header_bytes,
      Setting("", "--max-header-bytes", "a larger request line and header: 431").range(1024, 1 << 20));
    f(http.max_headers, Setting("", "--max-headers", "more header fields: 431").range(8, 10000));
    f(limits.max_sentences,
      Setting("", "--max-sentences", "sentences per /translate request; more: 400").range(1, 100000));
    f(limits.max_sentence_chars,
      Setting("", "--max-sentence-chars", "bytes per sentence; more: 400").range(1, 1 << 20));
    f(limits.max_beam, Setting("", "--max-beam", "the largest \"beam\" accepted; more: 400").range(1, 64));
    f(limits.max_image_pixels, Setting("", "--max-image-pixels",
                                       "width x height an image sent to /classify may claim (read from its header "
                                       "before decoding); more: 413")
                                   .range(1, 1LL << 30));
    f(batching.max_queued,
      Setting("", "--queue", "requests waiting for the model at most; more: 503 with Retry-After").range(1, 1000000));
    f(limits.request_timeout_s,
      Setting("", "--request-timeout-s", "a request not answered by then: 504").range(0.001, 86400));
    f.group("Dynamic batching");
    f(batching.wait_ms,
      Setting("", "--batch-wait-ms", "after a request, wait this long for others to decode with it (0: no wait)")
          .range(0, 10000));
    f(batching.max_batch, Setting("", "--max-batch", "sentences decoded together at most").range(1, 100000));
    f(batching.max_batch_tokens, Setting("", "--max-batch-tokens",
                                         "source tokens (words or subword pieces) decoded together at most; 0: no "
                                         "limit (one request is never split)")
                                     .range(0, 100000000));
    f(c.model.decode_workers,
      Setting("", "--decode-workers",
              "cut each batch into N chunks decoded on N threads of one intra-op thread each (CPU; 1: one pass with "
              "--threads intra-op threads; default: one per core, which docs/serving.md measures best)")
          .range(1, 256));
    f(c.no_batching,
      Setting("", "--no-batching", "every request decoded on its own (--batch-wait-ms 0 --max-batch 1)"));
    f.group("Model");
    f(c.model.device, Setting("", "--device", "cpu, cuda or auto").one_of(util::kDeviceNames));
    f(c.threads, Setting("", "--threads",
                         "intra-op threads (default: all cores; translating on the CPU: 1, and --decode-workers one "
                         "per core)")
                     .range(1, 256));
    f(c.weights, Setting("", "--weights", "runs with --ema-decay: ema (the moving average) or trained")
                     .one_of(checkpoint::kWeightsNames.names()));
    f(c.model.precision, Setting("", "--precision", util::kPrecisionHelp).one_of(util::kPrecisionNames.names()));
    f(c.model.quantize, Setting("", "--quantize", kQuantizeHelp).one_of(kQuantizeNames));
    f(c.log_level,
      Setting("", "--log-level", "trace, debug (every request), info, warn, error or off").one_of(util::kLogLevels));
  }
};

// Serves as `command` says until a signal stops it: the runtime's threads and log level, the
// page's folder (`page_dir`, else beside the program, else `source_page_dir`), and
// "listening on ..." on `ready`. Throws std::runtime_error (one line) when the checkpoint
// cannot be served as asked.
void run_server(ServerCommand command, const std::string& source_page_dir, std::ostream& ready);

}  // namespace dls::serve

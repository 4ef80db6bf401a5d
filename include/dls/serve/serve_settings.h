// What translate_server is told: where it listens, where its page is, and the limits that
// keep one client from starving the others (each with the HTTP status it answers).
#pragma once

#include <cstddef>
#include <string>

#include "dls/serve/http_server.h"
#include "dls/util/precision.h"

namespace dls::serve {

// How requests from several clients are decoded together (serve/batcher.h).
struct BatchingSettings {
  double wait_ms = 5;                // the worker waits this long after a first request for others to join
  std::size_t max_batch = 64;        // sentences decoded together at most (one request is never split)
  std::size_t max_batch_tokens = 0;  // source tokens (words or pieces) decoded together at most; 0: no limit
  int decode_workers =
      1;  // a batch cut into this many chunks, decoded on as many threads (translate_server: one per intra-op thread)
  std::size_t max_queued = 64;   // requests waiting for the worker; one more is refused (503)
  util::AutocastState autocast;  // the model's precision on its thread (translate_server --precision bf16)
};

struct ServeLimits {
  std::size_t max_sentences = 64;              // sentences in one /translate request; more: 400
  std::size_t max_sentence_chars = 2000;       // bytes of one sentence; more: 400
  int max_beam = 16;                           // "beam" above this: 400
  double request_timeout_s = 30;               // a request not answered by then: 504
  long long max_image_pixels = 4096LL * 4096;  // width x height an uploaded image's header may claim; more: 413
};

struct ServeSettings {
  std::string host = "127.0.0.1";
  int port = 8080;              // 0: a free port, chosen by the system
  std::string page_dir;         // the web page's files (GET /, GET /<file>); empty: none
  std::string checkpoint_file;  // what GET /model names
  HttpLimits http;              // connections, deadlines, head and body sizes, Host names
  ServeLimits limits;
  BatchingSettings batching;
};

}  // namespace dls::serve

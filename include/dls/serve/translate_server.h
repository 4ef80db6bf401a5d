// translate_server's HTTP server: the routes of the API (docs/serving.md) over one
// eval::Translator or one eval::ImageClassifier, whose model work all goes through one
// DynamicBatcher worker.
//
//   seq2seq: POST /translate  {"sentences": [...], "beam": K}  -> translations, scores, timings
//            POST /attention  {"sentence": "...", "beam": K}   -> every layer's and head's weights
//   ViT:     POST /classify?top=K  the PNG's bytes  -> classes, probabilities, attention, timings
//   both:    GET  /health, GET /model, GET / and GET /<file> (the page)
//
// The HTTP transport, and what it withstands, is serve/http_server.h.
#pragma once

#include <iosfwd>
#include <memory>

#include "dls/eval/image_classifier.h"
#include "dls/eval/translator.h"
#include "dls/serve/serve_settings.h"

namespace dls::serve {

class TranslateServer {
 public:
  TranslateServer(eval::Translator& translator, ServeSettings settings);
  TranslateServer(eval::ImageClassifier& classifier, ServeSettings settings);
  ~TranslateServer();
  TranslateServer(const TranslateServer&) = delete;
  TranslateServer& operator=(const TranslateServer&) = delete;

  // Binds settings.host:port; returns the port (the one chosen when port is 0). Throws one
  // line when it cannot.
  int bind();
  // Serves until stop(); returns once every request in flight has been answered.
  void serve();
  // Stops accepting; thread-safe (a signal watcher calls it).
  void stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The whole program: binds, writes "listening on http://HOST:PORT" to `ready` (flushed),
// serves until SIGTERM or SIGINT (block_stop_signals() first, in main), lets the requests
// in flight finish. Returns the signal that stopped it.
int serve_until_signalled(eval::Translator& translator, const ServeSettings& settings, std::ostream& ready);
int serve_until_signalled(eval::ImageClassifier& classifier, const ServeSettings& settings, std::ostream& ready);

}  // namespace dls::serve

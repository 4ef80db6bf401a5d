#include "dls/serve/translate_server.h"

#include <sys/socket.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <fstream>
#include <ostream>
#include <sstream>
#include <thread>

#include <spdlog/spdlog.h>

#include "dls_httplib.h"  // cpp-httplib as Debian built it (cmake/DlsDependencies.cmake)

#include "dls/serve/api_json.h"
#include "dls/serve/batcher.h"
#include "dls/serve/page_files.h"
#include "dls/serve/stop_signals.h"
#include "dls/serve/vit_api_json.h"
#include "dls/util/png_image.h"

namespace dls::serve {

namespace {

using Clock = std::chrono::steady_clock;

eval::DecodeOptions decode_options(int beam, std::size_t sentences) {
  eval::DecodeOptions decode;
  decode.method = beam > 1 ? eval::DecodeMethod::kBeam : eval::DecodeMethod::kGreedy;
  decode.beam_size = std::max(1, beam);
  decode.batch_size = static_cast<std::int64_t>(std::max<std::size_t>(1, sentences));  // the batch in one pass
  return decode;
}

void reply(httplib::Response& res, int status, const std::string& json) {
  res.status = status;
  res.set_content(json, "application/json");
}

void reply_error(httplib::Response& res, int status, const std::string& message) {
  reply(res, status, error_answer(message));
}

const char* status_line(int status) {
  switch (status) {
    case 400:
      return "bad request";
    case 404:
      return "not found";
    case 405:
      return "method not allowed";
    case 413:
      return "the request body is too large";
    case 414:
      return "the request URI is too long";
    case 503:
      return "the server is busy";
    default:
      return status >= 500 ? "internal server error" : "request refused";
  }
}

// Runs a route; every failure becomes {"error": ...} with its status.
template <class Route>
httplib::Server::Handler guarded(Route route) {
  return [route](const httplib::Request& req, httplib::Response& res) {
    try {
      route(req, res);
    } catch (const ApiError& e) {
      reply_error(res, e.status(), e.what());
    } catch (const QueueFull& e) {
      res.set_header("Retry-After", "1");
      reply_error(res, 503, e.what());
    } catch (const RequestTimedOut& e) {
      reply_error(res, 504, e.what());
    } catch (const std::exception& e) {
      spdlog::error("{} {}: {}", req.method, req.path, e.what());
      reply_error(res, 500, e.what());
    }
  };
}

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

}  // namespace

// One model, either kind: the routes of the other kind are not added (404).
struct TranslateServer::Impl {
  Impl(eval::Translator* t, eval::ImageClassifier* c, ServeSettings s)
      : translator(t),
        classifier(c),
        settings(std::move(s)),
        model_json(t != nullptr ? model_answer(*t) : vit_model_answer(*c)),
        batcher([this](const std::vector<std::string>& sentences,
                       int beam) { return translator->translate(sentences, decode_options(beam, sentences.size())); },
                settings.batching) {}

  std::chrono::milliseconds timeout() const {
    return std::chrono::milliseconds(static_cast<long long>(settings.limits.request_timeout_s * 1000));
  }

  void translate(const httplib::Request& req, httplib::Response& res) {
    const auto start = Clock::now();
    const auto call = parse_translate_call(req.body, settings.limits);
    const auto result = batcher.submit(call.sentences, call.beam).wait(timeout());
    reply(res, 200, translate_answer(result, call.beam, ms_since(start)));
  }

  void attention(const httplib::Request& req, httplib::Response& res) {
    const auto call = parse_attention_call(req.body, settings.limits);
    using Traced = std::pair<eval::SentenceTranslation, eval::TranslationAttention>;
    const auto traced = batcher.run_alone<Traced>(
        [this, call] {
          Traced out;
          out.first = translator->translate(call.sentence, decode_options(call.beam, 1));
          if (out.first.ok()) out.second = translator->attention(out.first);
          return out;
        },
        timeout());
    if (!traced.first.ok()) throw ApiError(400, traced.first.error);
    reply(res, 200, attention_answer(traced.first, traced.second, call.beam));
  }

  // The body is the PNG's bytes (no multipart form); its size is checked from the header
  // before it is decoded, so a small file claiming a huge image costs nothing.
  void classify(const httplib::Request& req, httplib::Response& res) {
    const auto start = Clock::now();
    const int top_k = parse_top_k(req.get_param_value("top"), static_cast<int>(classifier->class_names().size()));
    std::vector<std::uint8_t> pixels;
    try {
      const auto size = util::read_png_size(req.body);
      eval::check_image_size(size.width, size.height, classifier->config());
      pixels = eval::model_pixels(util::decode_png(req.body), classifier->config());
    } catch (const std::invalid_argument& e) {
      throw ApiError(400, e.what());
    }
    const double decode_ms = ms_since(start);
    const auto result = batcher.run_alone<eval::ImageClassification>(
        [this, pixels] { return classifier->classify(pixels); }, timeout());
    reply(res, 200, classify_answer(result, *classifier, top_k, decode_ms, ms_since(start)));
  }

  void page(const httplib::Request& req, httplib::Response& res) {
    if (settings.page_dir.empty()) throw ApiError(404, "no page is served (--page-dir)");
    const auto file = page_file(settings.page_dir, req.path);
    if (file.empty()) throw ApiError(404, "not found: " + req.path);
    std::ifstream in(file, std::ios::binary);
    std::ostringstream content;
    content << in.rdbuf();
    res.set_content(content.str(), content_type(file).c_str());
  }

  // Another method than the path's: 405 naming the one it takes; an unknown path: 404.
  void wrong_method(const httplib::Request& req, httplib::Response& res) {
    std::string allowed;
    if (translator != nullptr && (req.path == "/translate" || req.path == "/attention")) allowed = "POST";
    if (classifier != nullptr && req.path == "/classify") allowed = "POST";
    if (req.path == "/health" || req.path == "/model" || !page_file(settings.page_dir, req.path).empty())
      allowed = "GET";
    if (allowed.empty()) throw ApiError(404, "not found: " + req.path);
    res.set_header("Allow", allowed);
    throw ApiError(405, req.method + " " + req.path + ": this resource takes " + allowed);
  }

  void add_routes() {
    const auto wrong = guarded([this](const auto& req, auto& res) { wrong_method(req, res); });
    if (translator != nullptr) {
      http.Post("/translate", guarded([this](const auto& req, auto& res) { translate(req, res); }));
      http.Post("/attention", guarded([this](const auto& req, auto& res) { attention(req, res); }));
      http.Get("/translate", wrong);
      http.Get("/attention", wrong);
    } else {
      http.Post("/classify", guarded([this](const auto& req, auto& res) { classify(req, res); }));
      http.Get("/classify", wrong);
    }
    http.Get("/health", guarded([this](const auto&, auto& res) { reply(res, 200, health_answer(batcher.queued())); }));
    http.Get("/model", guarded([this](const auto&, auto& res) { reply(res, 200, model_json); }));
    http.Get(".*", guarded([this](const auto& req, auto& res) { page(req, res); }));
    http.Post(".*", wrong);
    http.Put(".*", wrong);
    http.Patch(".*", wrong);
    http.Delete(".*", wrong);
    // httplib's own refusals (413 over --max-body-bytes, 404, a malformed request) as JSON too.
    const auto max_body = settings.limits.max_body_bytes;
    http.set_error_handler(
        httplib::Server::HandlerWithResponse([max_body](const httplib::Request&, httplib::Response& res) {
          if (!res.body.empty()) return httplib::Server::HandlerResponse::Unhandled;
          const std::string message = res.status == 413 ? "the request body is larger than " +
                                                              std::to_string(max_body) + " bytes (--max-body-bytes)"
                                                        : status_line(res.status);
          reply(res, res.status, error_answer(message));
          return httplib::Server::HandlerResponse::Handled;
        }));
    http.set_logger([](const httplib::Request& req, const httplib::Response& res) {
      spdlog::debug("{} {} -> {}", req.method, req.path, res.status);
    });
  }

  eval::Translator* translator;       // the seq2seq model, or null
  eval::ImageClassifier* classifier;  // the ViT, or null
  ServeSettings settings;
  std::string model_json;  // GET /model: fixed once loaded
  DynamicBatcher batcher;
  httplib::Server http;
  std::atomic<bool> serve_started{false}, stop_requested{false}, serve_done{false};
  int listen_socket = -1;  // the socket bind() made (its backlog is raised)
};

TranslateServer::TranslateServer(eval::Translator& translator, ServeSettings settings)
    : TranslateServer(std::make_unique<Impl>(&translator, nullptr, std::move(settings))) {}

TranslateServer::TranslateServer(eval::ImageClassifier& classifier, ServeSettings settings)
    : TranslateServer(std::make_unique<Impl>(nullptr, &classifier, std::move(settings))) {}

TranslateServer::TranslateServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {
  auto& http = impl_->http;
  const auto connections = std::max<std::size_t>(2, impl_->settings.connections);
  http.new_task_queue = [connections] { return new httplib::ThreadPool(connections); };
  http.set_payload_max_length(impl_->settings.limits.max_body_bytes);
  // SO_REUSEADDR alone: cpp-httplib's default adds SO_REUSEPORT, with which a second server
  // on a busy port binds too and silently shares its connections.
  auto& listen_socket = impl_->listen_socket;
  http.set_socket_options([&listen_socket](socket_t sock) {
    int yes = 1;
    ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
    listen_socket = sock;
  });
  http.set_keep_alive_max_count(1000);
  http.set_keep_alive_timeout(5);  // an idle connection holds a thread (and delays a stop) this long
  http.set_read_timeout(10);
  impl_->add_routes();
}

TranslateServer::~TranslateServer() {
  stop();
  impl_->batcher.stop();
}

int TranslateServer::bind() {
  const auto& s = impl_->settings;
  int port = s.port;
  if (port == 0) {
    port = impl_->http.bind_to_any_port(s.host);
  } else if (!impl_->http.bind_to_port(s.host, port)) {
    port = -1;
  }
  // cpp-httplib 0.11 listens with a backlog of 5: many clients connecting at once would see
  // their handshakes dropped and retried (seconds). A second listen() raises it.
  if (port > 0 && impl_->listen_socket >= 0) ::listen(impl_->listen_socket, SOMAXCONN);
  if (port <= 0)
    throw std::runtime_error("cannot listen on " + s.host + ":" + std::to_string(s.port) +
                             " (in use, or not an address of this machine)");
  return port;
}

void TranslateServer::serve() {
  impl_->serve_started = true;
  if (!impl_->stop_requested) impl_->http.listen_after_bind();  // returns when every connection is done
  impl_->serve_done = true;
  impl_->batcher.stop();  // the requests still queued are answered first
}

void TranslateServer::stop() {
  impl_->stop_requested = true;
  if (!impl_->serve_started) return;  // serve() will see stop_requested
  while (!impl_->serve_done && !impl_->http.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  impl_->http.stop();
}

namespace {

int serve_and_wait(TranslateServer& server, const ServeSettings& settings, std::ostream& ready) {
  const int port = server.bind();
  StopSignalWatcher watcher([&server] { server.stop(); });
  ready << "listening on http://" << settings.host << ":" << port << std::endl;
  server.serve();
  spdlog::info("stopped{}", watcher.signal() != 0 ? " by signal " + std::to_string(watcher.signal()) : "");
  return watcher.signal();
}

}  // namespace

int serve_until_signalled(eval::Translator& translator, const ServeSettings& settings, std::ostream& ready) {
  TranslateServer server(translator, settings);
  return serve_and_wait(server, settings, ready);
}

int serve_until_signalled(eval::ImageClassifier& classifier, const ServeSettings& settings, std::ostream& ready) {
  TranslateServer server(classifier, settings);
  return serve_and_wait(server, settings, ready);
}

}  // namespace dls::serve

#include "dls/serve/translate_server.h"

#include <algorithm>
#include <chrono>
#include <fstream>
#include <ostream>
#include <sstream>

#include <spdlog/spdlog.h>

#include "dls/eval/word_alignment.h"
#include "dls/serve/api_json.h"
#include "dls/serve/batcher.h"
#include "dls/serve/http_server.h"
#include "dls/serve/page_files.h"
#include "dls/serve/stop_signals.h"
#include "dls/serve/vit_api_json.h"
#include "dls/util/image_file.h"

namespace dls::serve {

namespace {

using Clock = std::chrono::steady_clock;

eval::DecodeOptions decode_options(const DecodeSetting& setting, std::size_t sentences, int workers = 1) {
  eval::DecodeOptions decode;
  decode.workers = std::max(1, workers);
  decode.method = setting.sample     ? eval::DecodeMethod::kSample
                  : setting.beam > 1 ? eval::DecodeMethod::kBeam
                                     : eval::DecodeMethod::kGreedy;
  decode.beam_size = std::max(1, setting.beam);
  decode.n_best = decode.beam_size;  // beam search holds them all: a request's "n_best" costs nothing more
  decode.length_penalty = setting.length_penalty;
  decode.coverage_penalty = setting.coverage_penalty;
  decode.replace_unknown = setting.replace_unknown;
  decode.sampling = setting.sampling;
  decode.batch_size = static_cast<std::int64_t>(std::max<std::size_t>(1, sentences));  // the batch in one pass
  return decode;
}

HttpResponse json_response(int status, std::string json) {
  HttpResponse response;
  response.status = status;
  response.body = std::move(json);
  return response;
}

HttpResponse error_response(int status, const std::string& message) {
  auto response = json_response(status, error_answer(message));
  if (status == 503) response.headers.emplace_back("Retry-After", "1");
  return response;
}

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// The model work waits for the worker threads: one more than the requests that may wait on
// the model, so that a full queue answers 503 rather than a thread pool queueing in silence.
HttpLimits http_limits(const ServeSettings& settings) {
  auto limits = settings.http;
  limits.workers = settings.batching.max_queued + 2;
  return limits;
}

}  // namespace

// One model, either kind: the routes of the other kind are not there (404, saying so).
struct TranslateServer::Impl {
  Impl(eval::Translator* t, eval::ImageClassifier* c, ServeSettings s)
      : translator(t),
        classifier(c),
        settings(std::move(s)),
        model_json(t != nullptr ? model_answer(*t) : vit_model_answer(*c)),
        batcher(
            [this](const std::vector<std::string>& sentences, const DecodeSetting& setting,
                   const DynamicBatcher::Cancelled& cancelled) {
              auto decode = decode_options(setting, sentences.size(), settings.batching.decode_workers);
              decode.cancelled = cancelled;
              const auto start = Clock::now();
              try {
                return translator->translate(sentences, decode);
              } catch (const eval::DecodingCancelled&) {
                spdlog::warn(
                    "stopped decoding {} sentences after {:.1f} s: every request of the batch timed out "
                    "(--request-timeout-s)",
                    sentences.size(), ms_since(start) / 1000);
                throw;
              }
            },
            settings.batching,
            [this](const std::string& sentence) { return translator ? translator->count_source_tokens(sentence) : 0; }),
        http(handlers(), http_limits(settings)) {}

  std::chrono::milliseconds timeout() const {
    return std::chrono::milliseconds(static_cast<long long>(settings.limits.request_timeout_s * 1000));
  }

  HttpResponse translate(const HttpRequest& req) {
    const auto start = Clock::now();
    const auto call = parse_translate_call(req.body, settings.limits);
    const auto result = batcher.submit(call.sentences, call.decode).wait(timeout());
    std::vector<std::string> alignments;
    if (call.alignment) {  // one teacher-forced pass per translation, on the model's thread
      alignments = batcher.run_alone<std::vector<std::string>>(
          [this, translations = result.translations] {  // a copy: the task may outlive a timed-out wait
            std::vector<std::string> texts;
            for (const auto& t : translations)
              texts.push_back(t.ok() ? eval::alignment_text(translator->alignment(t)) : "");
            return texts;
          },
          timeout());
    }
    return json_response(200, translate_answer(result, call.decode.beam, ms_since(start), call.n_best, alignments));
  }

  HttpResponse attention(const HttpRequest& req) {
    const auto call = parse_attention_call(req.body, settings.limits);
    // The maps grow with the square of the length (a 1,000-word sentence: a 148 MB answer):
    // drawn for what the model translates whole at most, in parts or not.
    const auto tokens = translator->count_source_tokens(call.sentence);
    const auto longest =
        static_cast<std::size_t>(eval::Translator::kWholeSentenceFactor * translator->max_source_tokens());
    if (tokens > longest)
      throw ApiError(400, "the sentence has " + std::to_string(tokens) +
                              " tokens; attention maps are drawn for up to " + std::to_string(longest) + " (" +
                              std::to_string(eval::Translator::kWholeSentenceFactor) +
                              " times what the model was trained on); /translate takes longer ones");
    using Traced = std::pair<eval::SentenceTranslation, eval::TranslationAttention>;
    const auto traced = batcher.run_alone<Traced>(
        [this, call] {
          Traced out;
          out.first = translator->translate(call.sentence, decode_options(call.decode, 1));
          if (out.first.ok()) out.second = translator->attention(out.first);
          return out;
        },
        timeout());
    if (!traced.first.ok()) throw ApiError(400, traced.first.error);
    return json_response(200, attention_answer(traced.first, traced.second, call.decode.beam));
  }

  // The body is a PNG's or JPEG's bytes (no multipart form), of any size up to
  // --max-image-pixels: resized to the model's as checkpoint_eval --classify and vit_train
  // --image-folder do. Its size is read from the header on this thread before anything is
  // decoded or queued (a small file may claim a huge image: 413), a JPEG is decoded near the
  // model's size, and images are decoded on the model's worker one at a time, so that many
  // uploads at once cannot hold many decoded images in memory.
  HttpResponse classify(const HttpRequest& req) {
    const auto start = Clock::now();
    const int top_k = parse_top_k(req.query_value("top"), static_cast<int>(classifier->class_names().size()));
    try {  // the header first, here: a file claiming too much is refused without waiting in the queue
      util::check_image_size(req.body, settings.limits.max_image_pixels);
    } catch (const util::ImageTooLarge& e) {
      throw ApiError(413, std::string(e.what()) + " (--max-image-pixels)");
    } catch (const std::invalid_argument& e) {
      throw ApiError(400, e.what());
    }
    using Classified = std::pair<eval::ImageClassification, double>;  // and the decoding's milliseconds
    const auto done = batcher.run_alone<Classified>(
        [this, body = req.body] {  // a copy: a request that timed out is gone while this may still run
          const auto decode_start = Clock::now();
          std::vector<std::uint8_t> pixels;
          try {
            pixels = eval::model_pixels(body, classifier->config(), settings.limits.max_image_pixels);
          } catch (const std::invalid_argument& e) {  // damaged past its header
            throw ApiError(400, e.what());
          }
          const double decode_ms = ms_since(decode_start);
          return Classified{classifier->classify(pixels), decode_ms};
        },
        timeout());
    return json_response(200, classify_answer(done.first, *classifier, top_k, done.second, ms_since(start)));
  }

  HttpResponse page(const HttpRequest& req) const {
    const auto file = page_file(settings.page_dir, req.path);
    std::ifstream in(file, std::ios::binary);
    std::ostringstream content;
    content << in.rdbuf();
    if (!in) throw std::runtime_error("cannot read " + file);
    HttpResponse response;
    response.content_type = content_type(file);
    response.body = content.str();
    return response;
  }

  bool is_model_path(const std::string& path) const {
    if (translator != nullptr) return path == "/translate" || path == "/attention";
    return path == "/classify";
  }

  std::string method_of(const std::string& path) const {
    if (is_model_path(path)) return "POST";
    if (path == "/health" || path == "/model") return "GET";
    if (!settings.page_dir.empty() && !page_file(settings.page_dir, path).empty()) return "GET";
    return "";
  }

  std::string missing(const std::string& path) const {
    if (translator != nullptr && path == "/classify")
      return "not found: /classify classifies images with a ViT checkpoint; this server translates (POST /translate)";
    if (classifier != nullptr && (path == "/translate" || path == "/attention"))
      return "not found: " + path + " needs a seq2seq checkpoint; this server classifies images (POST /classify)";
    if (settings.page_dir.empty() && (path == "/" || path == "/index.html")) return "no page is served (--page-dir)";
    return "not found: " + path;
  }

  // Every failure becomes {"error": ...} with its status.
  HttpResponse handle(const HttpRequest& req) {
    try {
      if (req.path == "/translate") return translate(req);
      if (req.path == "/attention") return attention(req);
      if (req.path == "/classify") return classify(req);
      if (req.path == "/health") return json_response(200, health_answer(batcher.queued()));
      if (req.path == "/model") return json_response(200, model_json);
      return page(req);
    } catch (const ApiError& e) {
      return error_response(e.status(), e.what());
    } catch (const QueueFull& e) {
      return error_response(503, e.what());
    } catch (const RequestTimedOut& e) {
      return error_response(504, e.what());
    }
  }

  HttpHandlers handlers() {
    HttpHandlers h;
    h.method_of = [this](const std::string& path) { return method_of(path); };
    h.missing = [this](const std::string& path) { return missing(path); };
    h.is_model_work = [this](const std::string& path) { return is_model_path(path); };
    h.handle = [this](const HttpRequest& req) { return handle(req); };
    h.error = error_response;
    return h;
  }

  eval::Translator* translator;       // the seq2seq model, or null
  eval::ImageClassifier* classifier;  // the ViT, or null
  ServeSettings settings;
  std::string model_json;  // GET /model: fixed once loaded
  DynamicBatcher batcher;
  HttpServer http;
};

TranslateServer::TranslateServer(eval::Translator& translator, ServeSettings settings)
    : impl_(std::make_unique<Impl>(&translator, nullptr, std::move(settings))) {}

TranslateServer::TranslateServer(eval::ImageClassifier& classifier, ServeSettings settings)
    : impl_(std::make_unique<Impl>(nullptr, &classifier, std::move(settings))) {}

TranslateServer::~TranslateServer() {
  stop();
  impl_->batcher.stop();
}

int TranslateServer::bind() { return impl_->http.bind(impl_->settings.host, impl_->settings.port); }

void TranslateServer::serve() {
  impl_->http.serve();    // returns when every connection is done
  impl_->batcher.stop();  // the requests still queued are answered first
}

void TranslateServer::stop() { impl_->http.stop(); }

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

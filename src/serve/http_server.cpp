#include "dls/serve/http_server.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <list>
#include <optional>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http.hpp>
#include <spdlog/spdlog.h>

#include "dls/serve/host_check.h"

namespace dls::serve {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = net::ip::tcp;
using Clock = std::chrono::steady_clock;

namespace {

std::chrono::milliseconds millis(double seconds) {
  return std::chrono::milliseconds(static_cast<long long>(seconds * 1000));
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// application/x-www-form-urlencoded: %XX and '+' for a space; a malformed escape stays as is.
std::string percent_decode(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '+') {
      out += ' ';
    } else if (text[i] == '%' && i + 2 < text.size() && hex_value(text[i + 1]) >= 0 && hex_value(text[i + 2]) >= 0) {
      out += static_cast<char>(hex_value(text[i + 1]) * 16 + hex_value(text[i + 2]));
      i += 2;
    } else {
      out += text[i];
    }
  }
  return out;
}

std::string_view view(boost::beast::string_view s) { return {s.data(), s.size()}; }

// `s` without the spaces and tabs around it (a header value's optional whitespace).
std::string_view trimmed(std::string_view s) {
  const auto first = s.find_first_not_of(" \t");
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(" \t") - first + 1);
}

constexpr std::size_t kReadSize = 16384;  // bytes asked of the socket at once

// The most one connection's unparsed input may hold: a head and a body at their limits and a
// few reads more (pipelined bytes). Beast bounds neither a chunk's size line with its
// extensions nor the trailer: a chunked request whose line never ended grew the buffer by
// 1.5 GB in 7 s before this limit (then: buffer_overflow, 413).
std::size_t read_buffer_limit(const HttpLimits& limits) {
  return limits.max_header_bytes + limits.max_body_bytes + 4 * kReadSize;
}

constexpr auto kLingerTime = std::chrono::seconds(2);  // reading what a refused client still sends

}  // namespace

std::string HttpRequest::query_value(const std::string& name) const {
  std::size_t at = 0;
  while (at <= query.size()) {
    auto end = query.find('&', at);
    if (end == std::string::npos) end = query.size();
    const auto equals = query.find('=', at);
    const auto key_end = equals < end ? equals : end;
    if (percent_decode(std::string_view(query).substr(at, key_end - at)) == name)
      return key_end < end ? percent_decode(std::string_view(query).substr(key_end + 1, end - key_end - 1)) : "";
    at = end + 1;
  }
  return {};
}

class Session;

struct HttpServer::Impl {
  Impl(HttpHandlers h, HttpLimits l)
      : handlers(std::move(h)), limits(std::move(l)), workers(std::max<std::size_t>(1, limits.workers)) {}

  void accept();
  void admit(tcp::socket socket);
  bool evict_one();
  HttpResponse run(const HttpRequest& request) noexcept;
  HttpResponse error(int status, const std::string& message) const { return handlers.error(status, message); }

  HttpHandlers handlers;
  HttpLimits limits;
  std::list<Session*> sessions;  // the open connections; touched on the I/O thread only
  net::io_context io{1};         // declared after `sessions`: the handlers it destroys close sessions
  tcp::acceptor acceptor{io};
  net::steady_timer accept_retry{io};
  std::atomic<bool> stop_requested{false};
  net::thread_pool workers;  // declared last: joined first
};

// One connection: reads a request under the limits, routes it, writes the answer, and reads
// the next (pipelined bytes are already in the buffer). Runs on the I/O thread; only the
// model work of a request goes to a worker thread and comes back.
class Session : public std::enable_shared_from_this<Session> {
 public:
  enum class State { kIdle, kReading, kWorking, kWriting, kClosing };

  Session(tcp::socket socket, HttpServer::Impl& server)
      : stream_(std::move(socket)), server_(server), buffer_(read_buffer_limit(server.limits)) {
    position_ = server_.sessions.insert(server_.sessions.end(), this);
  }
  ~Session() { server_.sessions.erase(position_); }

  void start() { wait_for_request(); }

  // Idle between requests, or still receiving one: what a new connection may displace.
  bool evictable() const { return state_ == State::kIdle || state_ == State::kReading; }
  bool closing() const { return state_ == State::kClosing; }
  Clock::time_point since() const { return since_; }

  void close() {
    enter(State::kClosing);
    beast::error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_both, ignored);
    stream_.socket().close(ignored);
  }

 private:
  const HttpLimits& limits() const { return server_.limits; }

  void enter(State state) {
    if (state_ == State::kClosing) return;
    state_ = state;
    since_ = Clock::now();
  }

  // A keep-alive connection waits `idle_timeout_s` for the first byte of its next request
  // (a new one `read_timeout_s`); then the whole request has `read_timeout_s`.
  void wait_for_request() {
    if (server_.stop_requested) return close();
    enter(State::kIdle);
    if (buffer_.size() > 0) return read_head();  // a pipelined request is here already
    stream_.expires_after(millis(answered_ == 0 ? limits().read_timeout_s : limits().idle_timeout_s));
    stream_.async_read_some(buffer_.prepare(kReadSize),
                            [self = shared_from_this()](beast::error_code ec, std::size_t n) {
                              self->buffer_.commit(n);
                              if (ec)
                                return self->close();  // a timeout, the client's close, an eviction: nothing to answer
                              self->read_head();
                            });
  }

  void read_head() {
    enter(State::kReading);
    request_line_ = "(no request line read)";
    request_start_ = Clock::now();
    parser_.emplace();
    parser_->header_limit(static_cast<std::uint32_t>(std::min<std::size_t>(limits().max_header_bytes, UINT32_MAX)));
    parser_->body_limit(limits().max_body_bytes);
    stream_.expires_after(millis(limits().read_timeout_s));  // head and body together
    http::async_read_header(stream_, buffer_, *parser_, [self = shared_from_this()](beast::error_code ec, std::size_t) {
      if (ec) return self->refuse_read_error(ec);
      self->check_head();
    });
  }

  void check_head() {
    const auto& head = parser_->get();
    const auto fields = static_cast<std::size_t>(std::distance(head.begin(), head.end()));
    if (fields > limits().max_headers)
      return refuse(431, "the request has " + std::to_string(fields) + " header fields; at most " +
                             std::to_string(limits().max_headers) + " are read");
    const auto host = head.find(http::field::host);
    if (head.count(http::field::host) > 1)  // RFC 9112 3.2: which one names the server is unclear
      return refuse(400, "the request has more than one Host header");
    if (head.version() >= 11 && (host == head.end() || host->value().empty()))
      return refuse(400, "an HTTP/1.1 request needs a Host header");
    if (host != head.end() && !host_is_allowed(view(host->value()), limits().allowed_hosts))
      return refuse(403, "Host \"" + std::string(view(host->value()).substr(0, 200)) +
                             "\" is not a name of this server (localhost names, IP addresses, --allow-host)");
    const auto encoding = head.find(http::field::content_encoding);
    if (encoding != head.end() && !beast::iequals(encoding->value(), "identity"))
      return refuse(415, "request bodies are not decompressed: Content-Encoding \"" +
                             std::string(view(encoding->value()).substr(0, 100)) + "\" is refused");
    // Beast decodes the chunked coding only: "gzip, chunked" would reach the handlers compressed.
    const auto transfer = head.find(http::field::transfer_encoding);
    const auto coding = transfer == head.end() ? std::string_view() : trimmed(view(transfer->value()));
    if (transfer != head.end() && (head.count(http::field::transfer_encoding) > 1 ||
                                   !beast::iequals(beast::string_view(coding.data(), coding.size()), "chunked")))
      return refuse(501, "only the chunked transfer coding is read");
    if (head.method() == http::verb::post && !parser_->content_length() && !parser_->chunked())
      return refuse(411, "a POST needs a Content-Length (or a chunked body)");
    const auto expect = head.find(http::field::expect);
    if (expect != head.end() && beast::iequals(expect->value(), "100-continue")) return send_continue();
    read_body();
  }

  void send_continue() {
    auto interim = std::make_shared<http::response<http::empty_body>>(http::status::continue_, 11);
    http::async_write(stream_, *interim, [self = shared_from_this(), interim](beast::error_code ec, std::size_t) {
      if (ec) return self->close();
      self->read_body();
    });
  }

  void read_body() {
    http::async_read(stream_, buffer_, *parser_, [self = shared_from_this()](beast::error_code ec, std::size_t) {
      if (ec) return self->refuse_read_error(ec);
      self->route();
    });
  }

  void refuse_read_error(beast::error_code ec) {
    if (ec == http::error::header_limit)
      return refuse(431, "the request's head is larger than " + std::to_string(limits().max_header_bytes) + " bytes");
    if (ec == http::error::buffer_overflow)
      return refuse(413, "the request is larger than " + std::to_string(read_buffer_limit(limits())) +
                             " bytes with its framing (a chunk line or trailer without an end?)");
    if (ec == http::error::body_limit)
      return refuse(413, "the request body is larger than " + std::to_string(limits().max_body_bytes) +
                             " bytes (--max-body-bytes)");
    // A malformed request is answered; a closed, reset, timed-out or evicted one is not.
    if (ec.category() == http::make_error_code(http::error::bad_method).category() &&
        ec != http::error::end_of_stream && ec != http::error::partial_message)
      return refuse(400, "malformed request: " + ec.message());
    close();
  }

  void route() {
    const auto& message = parser_->get();
    keep_alive_ = message.keep_alive();
    head_only_ = message.method() == http::verb::head;
    version_ = message.version();
    HttpRequest request;
    request.method = head_only_ ? "GET" : std::string(view(message.method_string()));
    const std::string_view target = view(message.target());
    const auto question = std::min(target.find('?'), target.size());
    request.path = std::string(target.substr(0, question));
    if (question < target.size()) request.query = std::string(target.substr(question + 1));
    const std::string method_name(view(message.method_string()));  // as sent: HEAD, FOO
    if (spdlog::should_log(spdlog::level::debug))
      request_line_ = method_name + " " + std::string(view(message.target()).substr(0, 200));
    request.body = std::move(parser_->get().body());
    parser_.reset();  // `message` is gone from here on
    if (request.path.empty() || request.path.front() != '/')
      return answer(server_.error(400, "the request target must be a path (\"/...\")"));
    const auto method = server_.handlers.method_of(request.path);
    if (method.empty()) return answer(server_.error(404, server_.handlers.missing(request.path)));
    if (request.method != method) {
      const std::string allow = method == "GET" ? "GET, HEAD" : method;
      auto refusal = server_.error(405, method_name + " " + request.path + ": this resource takes " + allow);
      refusal.headers.emplace_back("Allow", allow);
      return answer(std::move(refusal));
    }
    if (!server_.handlers.is_model_work(request.path)) return answer(server_.run(request));
    enter(State::kWorking);
    // The work guard keeps serve() running until the answer is back on the I/O thread.
    net::post(server_.workers, [self = shared_from_this(), request = std::move(request),
                                guard = net::make_work_guard(server_.io)]() mutable {
      auto response = self->server_.run(request);
      net::post(self->server_.io,
                [self, response = std::move(response)]() mutable { self->answer(std::move(response)); });
    });
  }

  void answer(HttpResponse response) { write(std::move(response), keep_alive_ && !server_.stop_requested, false); }

  // Answers and closes: what the client still sends is read and dropped for a moment, so
  // that closing with unread bytes does not reset the connection before it reads the answer.
  void refuse(int status, const std::string& message) {
    keep_alive_ = false;
    write(server_.error(status, message), false, true);
  }

  void write(HttpResponse response, bool keep_alive, bool linger) {
    if (state_ == State::kClosing) return;
    enter(State::kWriting);
    log_request(response);
    auto out = std::make_shared<http::response<http::string_body>>(static_cast<http::status>(response.status),
                                                                   version_ == 10 ? 10 : 11);
    out->set(http::field::server, "dlstudio-cpp");
    out->set(http::field::content_type, response.content_type);
    out->set("X-Content-Type-Options", "nosniff");
    for (const auto& [name, value] : response.headers) out->set(name, value);
    out->body() = std::move(response.body);
    out->keep_alive(keep_alive);
    out->prepare_payload();
    if (head_only_) {
      const auto length = out->body().size();
      out->body().clear();
      out->content_length(length);
    }
    stream_.expires_after(millis(limits().read_timeout_s));
    http::async_write(stream_, *out,
                      [self = shared_from_this(), out, keep_alive, linger](beast::error_code ec, std::size_t) {
                        if (ec) return self->close();
                        ++self->answered_;
                        if (linger) return self->linger();
                        if (!keep_alive) return self->close();
                        self->head_only_ = false;
                        self->wait_for_request();
                      });
  }

  void linger() {
    enter(State::kClosing);
    beast::error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
    stream_.expires_after(kLingerTime);
    drain();
  }

  // --log-level debug: one line per answer, a refusal's message with it.
  void log_request(const HttpResponse& response) const {
    if (!spdlog::default_logger_raw()->should_log(spdlog::level::debug)) return;
    beast::error_code ec;
    const auto peer = stream_.socket().remote_endpoint(ec);
    const double ms = std::chrono::duration<double, std::milli>(Clock::now() - request_start_).count();
    spdlog::debug("{} {} -> {} in {:.1f} ms{}", ec ? std::string("?") : peer.address().to_string(), request_line_,
                  response.status, ms, response.status >= 400 ? ": " + response.body.substr(0, 300) : "");
  }

  void drain() {
    stream_.async_read_some(net::buffer(discard_), [self = shared_from_this()](beast::error_code ec, std::size_t n) {
      self->drained_ += n;
      if (ec || self->drained_ > 4 * self->limits().max_body_bytes) return self->close();
      self->drain();
    });
  }

  beast::tcp_stream stream_;
  HttpServer::Impl& server_;
  std::list<Session*>::iterator position_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  State state_ = State::kIdle;
  Clock::time_point since_ = Clock::now();
  std::size_t answered_ = 0;  // requests answered on this connection
  bool keep_alive_ = true, head_only_ = false;
  unsigned version_ = 11;
  std::array<char, 4096> discard_{};
  std::size_t drained_ = 0;
  std::string request_line_;  // "POST /translate", for the debug log
  Clock::time_point request_start_ = Clock::now();
};

void HttpServer::Impl::accept() {
  acceptor.async_accept([this](beast::error_code ec, tcp::socket socket) {
    if (!acceptor.is_open()) return;  // stop()
    if (ec) {
      // Out of descriptors, say: try again shortly instead of spinning.
      spdlog::warn("accepting a connection failed: {}", ec.message());
      accept_retry.expires_after(std::chrono::milliseconds(50));
      accept_retry.async_wait([this](beast::error_code) { accept(); });
      return;
    }
    admit(std::move(socket));
    accept();
  });
}

void HttpServer::Impl::admit(tcp::socket socket) {
  // Answers are small and written whole: sent at once, not held by Nagle's algorithm for an ACK.
  beast::error_code ignored;
  socket.set_option(tcp::no_delay(true), ignored);
  const auto open = static_cast<std::size_t>(
      std::count_if(sessions.begin(), sessions.end(), [](const Session* s) { return !s->closing(); }));
  if (open < limits.connections || evict_one()) {
    std::make_shared<Session>(std::move(socket), *this)->start();
    return;
  }
  // Every connection is waiting on the model: this one is told so and closed.
  auto response = error(503, "the server has " + std::to_string(open) + " connections busy (--connections)");
  auto out = std::make_shared<http::response<http::string_body>>(http::status::service_unavailable, 11);
  out->set(http::field::content_type, response.content_type);
  out->set(http::field::retry_after, "1");
  out->body() = std::move(response.body);
  out->keep_alive(false);
  out->prepare_payload();
  auto peer = std::make_shared<tcp::socket>(std::move(socket));
  http::async_write(*peer, *out, [peer, out](beast::error_code, std::size_t) {
    beast::error_code ignored;
    peer->shutdown(tcp::socket::shutdown_both, ignored);
    peer->close(ignored);
  });
}

// Closes the connection that has been idle or reading its request the longest.
bool HttpServer::Impl::evict_one() {
  Session* oldest = nullptr;
  for (auto* s : sessions) {
    if (s->evictable() && (oldest == nullptr || s->since() < oldest->since())) oldest = s;
  }
  if (oldest == nullptr) return false;
  spdlog::debug("connection limit reached: closing one idle or slow for {} ms",
                std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - oldest->since()).count());
  oldest->close();
  return true;
}

HttpResponse HttpServer::Impl::run(const HttpRequest& request) noexcept {
  try {
    return handlers.handle(request);
  } catch (const std::exception& e) {
    spdlog::error("{} {}: {}", request.method, request.path, e.what());
    return error(500, e.what());
  }
}

HttpServer::HttpServer(HttpHandlers handlers, HttpLimits limits)
    : impl_(std::make_unique<Impl>(std::move(handlers), std::move(limits))) {}

HttpServer::~HttpServer() {
  stop();
  impl_->workers.join();
}

int HttpServer::bind(const std::string& host, int port) {
  auto& acceptor = impl_->acceptor;
  try {
    tcp::resolver resolver(impl_->io);
    const auto endpoint =
        resolver.resolve(host, std::to_string(port), tcp::resolver::passive | tcp::resolver::numeric_service)
            .begin()
            ->endpoint();
    acceptor.open(endpoint.protocol());
    // SO_REUSEADDR alone (no SO_REUSEPORT): a second server on a busy port fails to bind.
    acceptor.set_option(tcp::acceptor::reuse_address(true));
    acceptor.bind(endpoint);
    acceptor.listen(net::socket_base::max_listen_connections);
    return acceptor.local_endpoint().port();
  } catch (const boost::system::system_error& e) {
    beast::error_code ignored;
    acceptor.close(ignored);
    throw std::runtime_error("cannot listen on " + host + ":" + std::to_string(port) + " (" + e.code().message() + ")");
  }
}

void HttpServer::serve() {
  if (impl_->stop_requested || !impl_->acceptor.is_open()) return;
  impl_->accept();
  impl_->io.run();
}

void HttpServer::stop() {
  if (impl_->stop_requested.exchange(true)) return;
  // A raw pointer: the handler runs inside serve(), which the owner joins before destroying
  // the server (a shared one would keep the server alive from its own queue).
  net::post(impl_->io, [impl = impl_.get()] {
    beast::error_code ignored;
    impl->acceptor.close(ignored);
    impl->accept_retry.cancel();
    std::vector<Session*> idle;
    for (auto* s : impl->sessions) {
      if (s->evictable()) idle.push_back(s);
    }
    for (auto* s : idle) s->close();
  });
}

bool HttpServer::stopping() const { return impl_->stop_requested; }

}  // namespace dls::serve

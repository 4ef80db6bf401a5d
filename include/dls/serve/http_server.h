// The HTTP/1.1 server under translate_server, built to face a browser's pages and a user's
// own machine as an attacker could (Boost.Beast over one I/O thread; the model work on
// worker threads):
//
//  - every request is read under a deadline for its head and body together, and a keep-alive
//    connection waiting for its next request closes after `idle_timeout_s`;
//  - the head is bounded in bytes and in header fields (431), the body by `max_body_bytes`
//    whatever its framing, before it is buffered (413: a Content-Length over the limit is
//    refused from the head, a chunked body when it passes the limit); bodies are never
//    decompressed (a Content-Encoding other than identity: 415);
//  - at most `connections` are open: one more closes the oldest of those idle or still
//    reading a request (slow clients cannot starve the others), else it is answered 503;
//  - the Host header must name this machine (DNS rebinding: a page whose name re-binds to
//    127.0.0.1 is refused, 403): localhost names, IP literals, or `allowed_hosts`;
//  - pipelined requests are answered in order; a client that half-closes after its request
//    is answered; a path asked with another method gets 405 and `Allow`.
//
//   HttpServer server(handlers, limits);
//   const int port = server.bind("127.0.0.1", 0);
//   std::thread serving([&] { server.serve(); });
//   ...; server.stop(); serving.join();   // the requests in flight are answered first
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace dls::serve {

struct HttpLimits {
  std::size_t connections = 256;           // open at once (see above)
  std::size_t max_body_bytes = 1 << 20;    // a larger body: 413
  std::size_t max_header_bytes = 16384;    // request line and header fields together; more: 431
  std::size_t max_headers = 100;           // header fields; more: 431
  double read_timeout_s = 10;              // a request's head and body arrive within this, or 408
  double idle_timeout_s = 2;               // a keep-alive connection without a request is closed
  std::size_t workers = 64;                // threads running model work (requests waiting on the model)
  std::vector<std::string> allowed_hosts;  // Host names answered besides localhost and IP literals; "*": any
};

struct HttpRequest {
  std::string method;  // "GET", "POST", ... ("HEAD" arrives as "GET")
  std::string path;    // without the query
  std::string query;   // after '?', undecoded
  std::string body;
  // The value of query parameter `name` (percent-decoded), or "" when absent.
  std::string query_value(const std::string& name) const;
};

struct HttpResponse {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;  // besides Content-Type and Content-Length
};

// What the server asks of the application.
struct HttpHandlers {
  // The method `path` takes ("GET" or "POST"), or "" when there is no such resource (404).
  std::function<std::string(const std::string& path)> method_of;
  // The message of the 404 for a path without a method.
  std::function<std::string(const std::string& path)> missing;
  // Whether answering `path` waits on the model: run on a worker thread, not the I/O thread.
  std::function<bool(const std::string& path)> is_model_work;
  // The answer to a request whose path and method match; exceptions become 500.
  std::function<HttpResponse(const HttpRequest&)> handle;
  // An error answer in the application's format (JSON {"error": message}).
  std::function<HttpResponse(int status, const std::string& message)> error;
};

class HttpServer {
 public:
  HttpServer(HttpHandlers handlers, HttpLimits limits);
  ~HttpServer();  // stop(), then waits for the workers
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Listens on host:port (0: a free port); returns the port. Throws one line when it cannot.
  int bind(const std::string& host, int port);
  // Serves until stop(); returns once every request in flight has been answered.
  void serve();
  // Stops accepting, closes idle and half-read connections, lets the rest finish. Thread-safe,
  // also before serve() (which then returns at once).
  void stop();
  // Whether stop() was called: work still running may answer 503.
  bool stopping() const;

 private:
  struct Impl;
  friend class Session;  // one connection (src/serve/http_server.cpp)
  std::unique_ptr<Impl> impl_;
};

}  // namespace dls::serve

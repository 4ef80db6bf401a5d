// HttpServer under the requests an attacker, a web page or an odd client sends, over raw
// sockets on loopback, each bounded in time: bodies over the limit in every framing,
// compressed bodies, oversized heads, foreign Host headers, slow-client floods, pipelining,
// half-closed clients, wrong methods, deadlines, and a stop with work in flight.
#include "dls/serve/http_server.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "support/raw_http.h"

namespace dls::serve {
namespace {

using namespace std::chrono_literals;
using test::RawConnection;

// GET /health; GET /query (the "x" parameter back); POST /work (model work: the body's
// size back, after `work_delay`).
class RunningServer {
 public:
  explicit RunningServer(HttpLimits limits = {}) {
    HttpHandlers handlers;
    handlers.method_of = [](const std::string& path) -> std::string {
      if (path == "/health" || path == "/query") return "GET";
      if (path == "/work") return "POST";
      return "";
    };
    handlers.missing = [](const std::string& path) { return "not found: " + path; };
    handlers.is_model_work = [](const std::string& path) { return path == "/work"; };
    handlers.handle = [this](const HttpRequest& request) {
      HttpResponse response;
      if (request.path == "/health") response.body = R"({"status": "ok"})";
      if (request.path == "/query") response.body = request.query_value("x");
      if (request.path == "/work") {
        ++work_calls;
        std::this_thread::sleep_for(work_delay);
        response.body = std::to_string(request.body.size());
      }
      return response;
    };
    handlers.error = [](int status, const std::string& message) {
      HttpResponse response;
      response.status = status;
      response.body = "{\"error\": \"" + message + "\"}";
      return response;
    };
    server_ = std::make_unique<HttpServer>(handlers, limits);
    port_ = server_->bind("127.0.0.1", 0);
    serving_ = std::thread([this] { server_->serve(); });
  }
  ~RunningServer() { stop(); }

  void stop() {
    if (!serving_.joinable()) return;
    server_->stop();
    serving_.join();
  }

  int port() const { return port_; }
  std::atomic<int> work_calls{0};
  std::chrono::milliseconds work_delay{0};

 private:
  std::unique_ptr<HttpServer> server_;
  int port_ = 0;
  std::thread serving_;
};

std::string get(const std::string& path, const std::string& host = "127.0.0.1") {
  return "GET " + path + " HTTP/1.1\r\nHost: " + host + "\r\n\r\n";
}

std::string post(const std::string& path, const std::string& body, const std::string& extra = "") {
  return "POST " + path + " HTTP/1.1\r\nHost: localhost\r\nContent-Length: " + std::to_string(body.size()) + "\r\n" +
         extra + "\r\n" + body;
}

std::optional<test::RawAnswer> ask(int port, const std::string& request) {
  RawConnection connection(port);
  if (!connection.send(request)) return std::nullopt;
  return connection.read_answer();
}

TEST(HttpServer, AnswersARequestAndDecodesItsQuery) {
  RunningServer server;
  const auto answer = ask(server.port(), get("/query?x=a%20b+c"));
  ASSERT_TRUE(answer);
  EXPECT_EQ(answer->status, 200);
  EXPECT_EQ(answer->body, "a b c");
  EXPECT_EQ(answer->header("content-type"), "application/json");
  const auto work = ask(server.port(), post("/work", "12345"));
  ASSERT_TRUE(work);
  EXPECT_EQ(work->body, "5");
}

TEST(HttpServer, AContentLengthOverTheLimitIsRefusedFromTheHead) {
  HttpLimits limits;
  limits.max_body_bytes = 1000;
  RunningServer server(limits);
  RawConnection connection(server.port());
  // Only the head is sent: the 413 cannot have waited for the body.
  ASSERT_TRUE(connection.send("POST /work HTTP/1.1\r\nHost: localhost\r\nContent-Length: 104857600\r\n\r\n"));
  const auto answer = connection.read_answer(2s);
  ASSERT_TRUE(answer);
  EXPECT_EQ(answer->status, 413);
  EXPECT_NE(answer->body.find("larger than 1000 bytes"), std::string::npos) << answer->body;
  EXPECT_EQ(server.work_calls, 0);
}

// 100 MiB in 64 KiB chunks would be sent; the answer comes once the limit is passed, and the
// client stops there.
TEST(HttpServer, AChunkedBodyIsHeldToTheLimitWhileItArrives) {
  HttpLimits limits;
  limits.max_body_bytes = 1 << 20;
  RunningServer server(limits);
  RawConnection connection(server.port());
  ASSERT_TRUE(connection.send("POST /work HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n\r\n"));
  const std::string chunk = "10000\r\n" + std::string(65536, 'a') + "\r\n";
  std::size_t sent = 0;
  while (sent < (100u << 20) && !connection.readable() && connection.send(chunk, 2s)) sent += 65536;
  const auto answer = connection.read_answer(5s);
  ASSERT_TRUE(answer);
  EXPECT_EQ(answer->status, 413);
  EXPECT_LT(sent, 100u << 20) << "the whole body was taken";
  EXPECT_EQ(server.work_calls, 0);
}

// A chunk's size line whose extension never ends, or a trailer that never ends: Beast bounds
// neither, so the connection's buffer does (413), long before the 64 MiB sent here.
TEST(HttpServer, AChunkLineOrTrailerWithoutAnEndIsRefused) {
  HttpLimits limits;
  limits.max_body_bytes = 1 << 20;
  RunningServer server(limits);
  const std::string head = "POST /work HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n\r\n";
  for (const std::string start : {"1;a=", "1\r\nx\r\n0\r\nX-Trailer: "}) {
    RawConnection connection(server.port());
    ASSERT_TRUE(connection.send(head + start));
    const std::string endless(65536, 'b');
    std::size_t sent = 0;
    while (sent < (64u << 20) && !connection.readable() && connection.send(endless, 2s)) sent += endless.size();
    const auto answer = connection.read_answer(5s);
    ASSERT_TRUE(answer) << start;
    EXPECT_EQ(answer->status, 413) << start;
    EXPECT_LT(sent, 8u << 20) << start << ": the buffer took " << sent << " bytes";
  }
  EXPECT_EQ(server.work_calls, 0);
}

TEST(HttpServer, CompressedBodiesAreRefusedNotInflated) {
  RunningServer server;
  const auto answer = ask(server.port(), post("/work", std::string(100, 'x'), "Content-Encoding: gzip\r\n"));
  ASSERT_TRUE(answer);
  EXPECT_EQ(answer->status, 415);
  EXPECT_NE(answer->body.find("gzip"), std::string::npos);
  for (const std::string coding : {"gzip", "gzip, chunked"}) {  // the second: Beast would pass gzip's bytes on
    const auto coded = ask(server.port(), "POST /work HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: " + coding +
                                              "\r\n\r\n5\r\nhello\r\n0\r\n\r\n");
    ASSERT_TRUE(coded) << coding;
    EXPECT_EQ(coded->status, 501) << coding;
  }
  EXPECT_EQ(server.work_calls, 0);
}

TEST(HttpServer, APostWithoutALengthIsRefusedAtOnce) {
  RunningServer server;
  RawConnection connection(server.port());
  ASSERT_TRUE(connection.send("POST /work HTTP/1.1\r\nHost: localhost\r\n\r\n{\"sentences\": "));
  const auto answer = connection.read_answer(2s);
  ASSERT_TRUE(answer);
  EXPECT_EQ(answer->status, 411);
}

TEST(HttpServer, HeadersAreBoundedInCountAndSize) {
  HttpLimits limits;
  limits.max_headers = 50;
  limits.max_header_bytes = 8192;
  RunningServer server(limits);
  std::string many = "GET /health HTTP/1.1\r\nHost: localhost\r\n";
  for (int i = 0; i < 60; ++i) many += "X-" + std::to_string(i) + ": 1\r\n";
  const auto counted = ask(server.port(), many + "\r\n");
  ASSERT_TRUE(counted);
  EXPECT_EQ(counted->status, 431);
  EXPECT_NE(counted->body.find("61 header fields"), std::string::npos) << counted->body;
  // 400,000 headers (20 MB): refused within the first 8 KiB.
  RawConnection flood(server.port());
  ASSERT_TRUE(flood.send("GET /health HTTP/1.1\r\nHost: localhost\r\n"));
  std::size_t sent = 0;
  while (sent < 400000 && !flood.readable() && flood.send("X-Header-Of-Fifty-Bytes: abcdefghijklmnopqrstuvwx\r\n", 2s))
    ++sent;
  const auto answer = flood.read_answer(5s);
  ASSERT_TRUE(answer);
  EXPECT_EQ(answer->status, 431);
  EXPECT_LT(sent, 400000u);
}

TEST(HttpServer, AForeignHostIsRefused) {
  HttpLimits limits;
  limits.allowed_hosts = {"translate.example.org"};
  RunningServer server(limits);
  for (const std::string host : {"rebind.evil.example", "rebind.evil.example:8080", "127.0.0.1.evil.example", ""}) {
    const auto answer = ask(server.port(), get("/health", host));
    ASSERT_TRUE(answer) << host;
    EXPECT_EQ(answer->status, host.empty() ? 400 : 403) << host;
  }
  for (const std::string host : {"127.0.0.1", "localhost:8080", "[::1]:80", "translate.example.org"}) {
    const auto answer = ask(server.port(), get("/health", host));
    ASSERT_TRUE(answer) << host;
    EXPECT_EQ(answer->status, 200) << host;
  }
  // Two Host headers: which one names the server is unclear, in either order.
  for (const std::string hosts :
       {"Host: localhost\r\nHost: rebind.evil.example", "Host: rebind.evil.example\r\nHost: localhost"}) {
    const auto answer = ask(server.port(), "GET /health HTTP/1.1\r\n" + hosts + "\r\n\r\n");
    ASSERT_TRUE(answer) << hosts;
    EXPECT_EQ(answer->status, 400) << hosts;
  }
  // HTTP/1.0 may leave Host out.
  const auto old = ask(server.port(), "GET /health HTTP/1.0\r\n\r\n");
  ASSERT_TRUE(old);
  EXPECT_EQ(old->status, 200);
}

TEST(HttpServer, PipelinedRequestsAreAnsweredInOrder) {
  RunningServer server;
  RawConnection connection(server.port());
  ASSERT_TRUE(connection.send(get("/query?x=1") + post("/work", "abc") + get("/query?x=3")));
  for (const std::string expected : {"1", "3", "3"}) {
    const auto answer = connection.read_answer();
    ASSERT_TRUE(answer);
    EXPECT_EQ(answer->status, 200);
    EXPECT_EQ(answer->body, expected);
  }
}

TEST(HttpServer, AHalfClosedClientIsAnswered) {
  RunningServer server;
  RawConnection connection(server.port());
  ASSERT_TRUE(connection.send(post("/work", "hello")));
  connection.shutdown_write();
  const auto answer = connection.read_answer();
  ASSERT_TRUE(answer);
  EXPECT_EQ(answer->body, "5");
  EXPECT_TRUE(connection.closed_within(2s));
}

TEST(HttpServer, AnotherMethodGets405NamingTheRightOne) {
  RunningServer server;
  for (const std::string method : {"OPTIONS", "GET", "PUT", "DELETE", "FOO"}) {
    const auto answer = ask(server.port(), method + " /work HTTP/1.1\r\nHost: localhost\r\n\r\n");
    ASSERT_TRUE(answer) << method;
    EXPECT_EQ(answer->status, 405) << method;
    EXPECT_EQ(answer->header("allow"), "POST") << method;
    // The method as sent (a verb Beast does not know lived only in the parser, gone by then).
    EXPECT_NE(answer->body.find(method + " /work: this resource takes POST"), std::string::npos) << answer->body;
  }
  const auto answer = ask(server.port(), post("/health", ""));
  ASSERT_TRUE(answer);
  EXPECT_EQ(answer->status, 405);
  EXPECT_EQ(answer->header("allow"), "GET, HEAD");
  RawConnection heading(server.port());
  ASSERT_TRUE(heading.send("HEAD /health HTTP/1.1\r\nHost: localhost\r\n\r\n" + get("/query?x=after")));
  const auto head = heading.read_answer(2s, true);
  ASSERT_TRUE(head);
  EXPECT_EQ(head->status, 200);
  EXPECT_EQ(head->header("content-length"), "16");  // the GET's body, not sent
  EXPECT_EQ(heading.read_answer()->body, "after");
  EXPECT_EQ(ask(server.port(), get("/nothing"))->status, 404);
}

TEST(HttpServer, AnIdleKeepAliveConnectionIsClosed) {
  HttpLimits limits;
  limits.idle_timeout_s = 0.3;
  RunningServer server(limits);
  RawConnection connection(server.port());
  ASSERT_TRUE(connection.send(get("/health")));
  ASSERT_TRUE(connection.read_answer());
  const auto start = std::chrono::steady_clock::now();
  EXPECT_TRUE(connection.closed_within(3s));
  EXPECT_LT(std::chrono::steady_clock::now() - start, 2s);
}

// A byte every 100 ms keeps a connection busy but not its request within the deadline.
TEST(HttpServer, ARequestTrickledPastTheDeadlineIsDropped) {
  HttpLimits limits;
  limits.read_timeout_s = 0.5;
  RunningServer server(limits);
  RawConnection connection(server.port());
  ASSERT_TRUE(connection.send("GET /health HTTP/1.1\r\n"));
  const auto start = std::chrono::steady_clock::now();
  bool closed = false;
  for (int i = 0; i < 40 && !closed; ++i) {
    closed = !connection.send("X") || connection.closed_within(100ms);
  }
  EXPECT_TRUE(closed);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 2s);
}

// More slow clients than connections: each new connection displaces the slowest, so a
// health check keeps being answered while they trickle.
TEST(HttpServer, HealthIsAnsweredUnderASlowClientFlood) {
  HttpLimits limits;
  limits.connections = 32;
  RunningServer server(limits);
  std::vector<std::unique_ptr<RawConnection>> slow;
  for (int i = 0; i < 150; ++i) {
    slow.push_back(std::make_unique<RawConnection>(server.port()));
    slow.back()->send("GET /health HTTP/1.1\r\nHost: localhost\r\nX-Slow: ");
  }
  std::atomic<bool> trickling{true};
  std::thread trickle([&] {
    while (trickling) {
      for (auto& s : slow) s->send("a", 10ms);
      std::this_thread::sleep_for(100ms);
    }
  });
  for (int i = 0; i < 5; ++i) {
    const auto start = std::chrono::steady_clock::now();
    RawConnection check(server.port());
    ASSERT_TRUE(check.send(get("/health")));
    const auto answer = check.read_answer(2s);
    ASSERT_TRUE(answer) << "health check " << i;
    EXPECT_EQ(answer->status, 200);
    EXPECT_LT(std::chrono::steady_clock::now() - start, 1s);
    std::this_thread::sleep_for(100ms);
  }
  trickling = false;
  trickle.join();
}

TEST(HttpServer, ModelWorkDoesNotHoldTheOtherRequests) {
  RunningServer server;
  server.work_delay = 1500ms;
  auto working = std::async(std::launch::async, [&] { return ask(server.port(), post("/work", "x")); });
  std::this_thread::sleep_for(200ms);
  const auto start = std::chrono::steady_clock::now();
  const auto health = ask(server.port(), get("/health"));
  ASSERT_TRUE(health);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 1s);
  const auto worked = working.get();
  ASSERT_TRUE(worked);
  EXPECT_EQ(worked->body, "1");
}

TEST(HttpServer, StopAnswersTheWorkInFlightFirst) {
  RunningServer server;
  server.work_delay = 500ms;
  RawConnection idle(server.port());
  ASSERT_TRUE(idle.send(get("/health")));
  ASSERT_TRUE(idle.read_answer());
  auto working = std::async(std::launch::async, [&] { return ask(server.port(), post("/work", "xy")); });
  std::this_thread::sleep_for(200ms);
  server.stop();  // returns once the work is answered and the idle connection closed
  const auto worked = working.get();
  ASSERT_TRUE(worked);
  EXPECT_EQ(worked->body, "2");
  EXPECT_EQ(worked->header("connection"), "close");
  EXPECT_TRUE(idle.closed_within(1s));
  EXPECT_FALSE(RawConnection(server.port()).connected());
}

TEST(HttpServer, ExpectContinueIsAnswered) {
  RunningServer server;
  RawConnection connection(server.port());
  ASSERT_TRUE(
      connection.send("POST /work HTTP/1.1\r\nHost: localhost\r\nContent-Length: 4\r\nExpect: 100-continue\r\n\r\n"));
  const auto interim = connection.read_answer(2s);
  ASSERT_TRUE(interim);
  EXPECT_EQ(interim->status, 100);
  ASSERT_TRUE(connection.send("abcd"));
  const auto answer = connection.read_answer();
  ASSERT_TRUE(answer);
  EXPECT_EQ(answer->body, "4");
}

}  // namespace
}  // namespace dls::serve

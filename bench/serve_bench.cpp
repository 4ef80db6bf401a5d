// dls_serve_bench: load on a running translate_server over loopback. For each number of
// concurrent clients (keep-alive connections, one sentence per request), sends requests
// until --requests are answered or --seconds pass, and prints requests/s and the p50 and
// p99 latency: one Markdown table row and one JSON line per client count.
//
//   dls_serve_bench --port 8080 --sentences sentences.txt --clients 1,8,64 --requests 400
// bench/serve_bench.sh starts the server with and without dynamic batching and runs this.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "dls_httplib.h"
#include "dls/cli/overrides.h"
#include "dls/cli/command_line.h"

namespace {

using Clock = std::chrono::steady_clock;

struct LoadResult {
  int clients = 0;
  std::size_t answered = 0, failed = 0;
  double seconds = 0;
  double p50_ms = 0, p99_ms = 0, mean_batch = 0;
};

double percentile(std::vector<double> values, double p) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const auto rank = static_cast<std::size_t>(p / 100.0 * static_cast<double>(values.size() - 1) + 0.5);
  return values[std::min(rank, values.size() - 1)];
}

LoadResult run_load(const std::string& host, int port, const std::vector<std::string>& sentences, int clients,
                    std::size_t requests, double seconds, int beam) {
  std::atomic<std::size_t> next{0};
  std::mutex mutex;
  std::vector<double> latencies;
  double batch_sum = 0;
  LoadResult result;
  result.clients = clients;
  const auto start = Clock::now();
  const auto deadline = start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
  std::vector<std::thread> threads;
  for (int c = 0; c < clients; ++c) {
    threads.emplace_back([&] {
      httplib::Client client(host, port);
      client.set_read_timeout(120, 0);
      client.set_keep_alive(true);
      // As browsers do: without it, a request's header and body go out in two segments and
      // Nagle's algorithm holds the second until the server's delayed ACK (~40 ms).
      client.set_tcp_nodelay(true);
      std::vector<double> mine;
      double batches = 0;
      std::size_t failed = 0;
      while (Clock::now() < deadline) {
        const auto i = next++;
        if (i >= requests) break;
        const nlohmann::json body = {{"sentences", {sentences[i % sentences.size()]}}, {"beam", beam}};
        const auto sent = Clock::now();
        const auto res = client.Post("/translate", body.dump(), "application/json");
        const double ms = std::chrono::duration<double, std::milli>(Clock::now() - sent).count();
        if (!res || res->status != 200) {
          if (failed++ == 0) {  // the first failure of each client says why
            std::lock_guard<std::mutex> lock(mutex);
            std::fprintf(stderr, "failed: %s\n",
                         res ? (std::to_string(res->status) + " " + res->body).c_str()
                             : httplib::to_string(res.error()).c_str());
          }
          continue;
        }
        mine.push_back(ms);
        batches += nlohmann::json::parse(res->body)["batch_sentences"].get<double>();
      }
      std::lock_guard<std::mutex> lock(mutex);
      latencies.insert(latencies.end(), mine.begin(), mine.end());
      batch_sum += batches;
      result.failed += failed;
    });
  }
  for (auto& t : threads) t.join();
  result.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  result.answered = latencies.size();
  result.p50_ms = percentile(latencies, 50);
  result.p99_ms = percentile(latencies, 99);
  result.mean_batch = latencies.empty() ? 0 : batch_sum / static_cast<double>(latencies.size());
  return result;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Load on a running translate_server: requests/s and p50/p99 latency per number of clients.\n"};
  std::string host = "127.0.0.1", sentences_file, label = "batching";
  int port = 8080, beam = 1, warmup = 20;
  std::vector<int> clients = {1, 8, 64};
  std::size_t requests = 400;
  double seconds = 60;
  app.add_option("--host", host, "the server's address")->capture_default_str();
  app.add_option("--port", port, "the server's port")->capture_default_str()->check(dls::cli::in_range(1, 65535));
  app.add_option("--sentences", sentences_file, "English sentences, one per line, sent in turn")->required();
  app.add_option("--clients", clients, "concurrent clients, one run each")->delimiter(',')->capture_default_str();
  app.add_option("--requests", requests, "requests per run at most")->capture_default_str();
  app.add_option("--seconds", seconds, "time per run at most")->capture_default_str();
  app.add_option("--beam", beam, "beam of every request (1: greedy)")->capture_default_str();
  app.add_option("--warmup", warmup, "requests sent first, not measured")->capture_default_str();
  app.add_option("--label", label, "names the server's set-up in the output")->capture_default_str();
  dls::cli::add_version_flag(app, "dls_serve_bench");
  if (const auto stop = dls::cli::parse_command_line(app, argc, argv)) return *stop;

  std::vector<std::string> sentences;
  std::ifstream in(sentences_file);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) sentences.push_back(line);
  if (sentences.empty()) {
    std::fprintf(stderr, "error: %s: no sentences\n", sentences_file.c_str());
    return 1;
  }
  if (warmup > 0) run_load(host, port, sentences, 1, static_cast<std::size_t>(warmup), seconds, beam);
  std::printf("| server | clients | requests | requests/s | p50 ms | p99 ms | sentences per batch | failed |\n");
  std::printf("| --- | --- | --- | --- | --- | --- | --- | --- |\n");
  std::vector<nlohmann::json> records;
  for (const int c : clients) {
    const auto r = run_load(host, port, sentences, c, requests, seconds, beam);
    const double rate = static_cast<double>(r.answered) / r.seconds;
    std::printf("| %s | %d | %zu | %.1f | %.1f | %.1f | %.1f | %zu |\n", label.c_str(), c, r.answered, rate, r.p50_ms,
                r.p99_ms, r.mean_batch, r.failed);
    std::fflush(stdout);
    records.push_back({{"label", label},
                       {"clients", c},
                       {"requests", r.answered},
                       {"failed", r.failed},
                       {"seconds", r.seconds},
                       {"requests_per_s", rate},
                       {"p50_ms", r.p50_ms},
                       {"p99_ms", r.p99_ms},
                       {"mean_batch_sentences", r.mean_batch}});
  }
  for (const auto& record : records) std::cerr << record.dump() << "\n";
  return 0;
}

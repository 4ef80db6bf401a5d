// translate_server started by a test on a free port of 127.0.0.1 (--port 0: it prints the
// one it got), and a JSON client for it; the process is killed when the test ends.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "dls_httplib.h"
#include "support/child_processes.h"
#include "support/test_paths.h"
#include "util/temp_files.h"

namespace dls::test {

class TranslateServerProcess {
 public:
  // Starts translate_server on `checkpoint` with `args` (after --port 0 --threads 1), logging
  // at `log_level`, and waits up to a minute for its "listening on" line; port() is 0 when it
  // never came.
  TranslateServerProcess(const std::string& checkpoint, const std::vector<std::string>& args, const std::string& name,
                         const std::string& log_level = "warn") {
    std::vector<std::string> argv = {
        testing::binary_dir() + "/apps/translate_server", checkpoint, "--port", "0", "--threads", "1"};
    argv.insert(argv.end(), args.begin(), args.end());
    index_ = children_.start(argv, {"DLS_LOG_LEVEL=" + log_level}, fresh_temp_dir("server_" + name), "server");
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    const std::string prefix = "listening on http://127.0.0.1:";
    while (std::chrono::steady_clock::now() < deadline && !children_.exited(index_)) {
      std::error_code missing;  // the child creates its output file after the fork
      const auto out = std::filesystem::exists(children_[index_].out, missing) ? children_[index_].stdout_text() : "";
      const auto at = out.find(prefix);
      if (at != std::string::npos && out.find('\n', at) != std::string::npos) {
        port_ = std::stoi(out.substr(at + prefix.size()));
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }

  int port() const { return port_; }
  const ChildProcess& process() const { return children_[index_]; }
  void signal(int signal) { children_.signal(index_, signal); }
  // Whether it exited on its own within `limit`.
  bool wait(std::chrono::milliseconds limit) { return children_.wait(index_, limit); }

  std::unique_ptr<httplib::Client> client(int read_timeout_s = 60) const {
    auto c = std::make_unique<httplib::Client>("127.0.0.1", port_);
    c->set_read_timeout(read_timeout_s, 0);
    c->set_connection_timeout(10, 0);
    return c;
  }

 private:
  ChildProcesses children_;
  std::size_t index_ = 0;
  int port_ = 0;
};

}  // namespace dls::test

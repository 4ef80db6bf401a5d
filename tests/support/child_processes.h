// Multi-process tests start programs (fork + exec, never c10d after a bare fork) with extra
// environment variables, each in a process group of its own so that a program's own
// children (torchrun's workers) go with it, wait for them with a time limit, and kill
// whatever is left: no test leaves a process behind or waits forever.
#pragma once

#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "dls/util/file_io.h"
#include "support/outside_needs.h"

extern char** environ;

namespace dls::test {

// A TCP port on 127.0.0.1 that was free a moment ago (bound to port 0, then released).
inline int free_local_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = 0;
  socklen_t size = sizeof(address);
  if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &size) != 0) {
    if (fd >= 0) ::close(fd);
    throw std::runtime_error("free_local_port: cannot bind a socket on 127.0.0.1");
  }
  ::close(fd);
  return ntohs(address.sin_port);
}

struct ChildProcess {
  pid_t pid = -1;
  std::filesystem::path out, err;  // its stdout and stderr
  int exit_code = -1;              // when it exited normally
  int signal = 0;                  // when a signal ended it
  bool running() const { return pid > 0; }
  std::string stdout_text() const { return util::read_file(out.string()); }
  std::string stderr_text() const { return util::read_file(err.string()); }
};

// Children of a test, killed (with their process groups) when it ends, however it ends.
class ChildProcesses {
 public:
  ChildProcesses() = default;
  ChildProcesses(const ChildProcesses&) = delete;
  ChildProcesses& operator=(const ChildProcesses&) = delete;
  ~ChildProcesses() {
    for (auto& child : children_) kill(child);
  }

  // Starts argv[0] (a path) with the environment plus `env` ("NAME=value", overriding),
  // stdout and stderr to files `name`.out/.err in `dir`. Returns the child's index.
  std::size_t start(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                    const std::filesystem::path& dir, const std::string& name) {
    check_launch(argv);  // what it runs from outside this project is declared
    ChildProcess child;
    child.out = dir / (name + ".out");
    child.err = dir / (name + ".err");
    // Everything the child needs is prepared before fork(): after it, in a process with
    // threads, only async-signal-safe calls are allowed until exec.
    std::vector<std::string> environment(env);
    for (char** e = environ; *e != nullptr; ++e) {
      const std::string entry = *e;
      const auto name_end = entry.find('=');
      bool overridden = false;
      for (const auto& mine : env)
        overridden = overridden || mine.compare(0, name_end + 1, entry, 0, name_end + 1) == 0;
      if (!overridden) environment.push_back(entry);
    }
    std::vector<char*> args, envp;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    for (const auto& e : environment) envp.push_back(const_cast<char*>(e.c_str()));
    args.push_back(nullptr);
    envp.push_back(nullptr);
    const std::string out = child.out.string(), err = child.err.string();
    const pid_t pid = ::fork();
    if (pid < 0) throw std::runtime_error("fork failed");
    if (pid == 0) {
      ::setpgid(0, 0);
      const int out_fd = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      const int err_fd = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (out_fd < 0 || err_fd < 0) ::_exit(126);
      ::dup2(out_fd, 1);
      ::dup2(err_fd, 2);
      ::execve(args[0], args.data(), envp.data());
      ::_exit(127);
    }
    ::setpgid(pid, pid);  // also here: no race with a kill before the child ran setpgid
    child.pid = pid;
    children_.push_back(child);
    return children_.size() - 1;
  }

  // Waits until child i exits or `limit` passes (then kills it). Returns whether it exited
  // on its own.
  bool wait(std::size_t i, std::chrono::milliseconds limit) {
    auto& child = children_.at(i);
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (child.running()) {
      int status = 0;
      const pid_t done = ::waitpid(child.pid, &status, WNOHANG);
      if (done == child.pid) {
        record(child, status);
        return true;
      }
      if (std::chrono::steady_clock::now() >= deadline) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    kill(child);
    return false;
  }

  // Whether child i has exited (reaped then, its status recorded); never waits or kills.
  bool exited(std::size_t i) {
    auto& child = children_.at(i);
    if (!child.running()) return true;
    int status = 0;
    if (::waitpid(child.pid, &status, WNOHANG) != child.pid) return false;
    record(child, status);
    return true;
  }

  // Sends `signal` to child i alone (not its group), if it still runs.
  void signal(std::size_t i, int signal) {
    if (children_.at(i).running()) ::kill(children_.at(i).pid, signal);
  }

  // Kills child i and its process group (SIGKILL) and reaps it.
  void kill(std::size_t i) { kill(children_.at(i)); }

  const ChildProcess& operator[](std::size_t i) const { return children_.at(i); }

 private:
  static void record(ChildProcess& child, int status) {
    if (WIFEXITED(status)) child.exit_code = WEXITSTATUS(status);
    if (WIFSIGNALED(status)) child.signal = WTERMSIG(status);
    ::kill(-child.pid, SIGKILL);  // anything it left in its group
    child.pid = -1;
  }
  static void kill(ChildProcess& child) {
    if (!child.running()) return;
    ::kill(-child.pid, SIGKILL);
    ::kill(child.pid, SIGKILL);
    int status = 0;
    ::waitpid(child.pid, &status, 0);
    record(child, status);
  }

  std::vector<ChildProcess> children_;
};

}  // namespace dls::test

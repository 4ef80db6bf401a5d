#include "dls/util/remove_on_signal.h"

#include <limits.h>
#include <signal.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <stdexcept>

namespace dls::util {

namespace {

constexpr std::array<int, 6> kSignals = {SIGHUP, SIGINT, SIGQUIT, SIGPIPE, SIGTERM, SIGXFSZ};

// The handler may only read what was complete before it was installed: the path is copied
// into static storage first, and `g_armed` is set last.
char g_path[PATH_MAX];
volatile std::sig_atomic_t g_armed = 0;
std::array<struct sigaction, kSignals.size()> g_previous;
std::array<bool, kSignals.size()> g_installed{};

// Only async-signal-safe calls: unlink, then the same signal again. SA_RESETHAND has put
// back the default action, and the signal is blocked until the handler returns, so the
// process ends by it right after.
extern "C" void remove_and_reraise(int signal) {
  const int saved_errno = errno;
  if (g_armed != 0) ::unlink(g_path);
  ::raise(signal);
  errno = saved_errno;
}

}  // namespace

RemoveOnSignal::RemoveOnSignal(const std::string& path) {
  if (g_armed != 0) throw std::logic_error("RemoveOnSignal: one temporary file at a time");
  if (path.size() >= sizeof(g_path)) throw std::runtime_error(path + ": path too long for a temporary file");
  std::memcpy(g_path, path.c_str(), path.size() + 1);
  g_armed = 1;
  struct sigaction action {};
  action.sa_handler = remove_and_reraise;
  sigemptyset(&action.sa_mask);
  for (const int signal : kSignals) sigaddset(&action.sa_mask, signal);  // one handler at a time
  action.sa_flags = SA_RESETHAND;
  for (std::size_t i = 0; i < kSignals.size(); ++i) {
    g_installed[i] = false;
    if (::sigaction(kSignals[i], nullptr, &g_previous[i]) != 0 || g_previous[i].sa_handler == SIG_IGN) continue;
    g_installed[i] = ::sigaction(kSignals[i], &action, nullptr) == 0;
  }
}

RemoveOnSignal::~RemoveOnSignal() {
  for (std::size_t i = 0; i < kSignals.size(); ++i) {
    if (g_installed[i]) ::sigaction(kSignals[i], &g_previous[i], nullptr);
    g_installed[i] = false;
  }
  g_armed = 0;
}

}  // namespace dls::util

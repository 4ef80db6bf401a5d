#include "dls/train/stop_signals.h"

#include <signal.h>
#include <time.h>

#include <chrono>
#include <atomic>
#include <csignal>

#include <spdlog/spdlog.h>

namespace dls::train {

namespace {

volatile std::sig_atomic_t g_received = 0;
// When the first signal came, in whole milliseconds of CLOCK_MONOTONIC (a sig_atomic_t holds
// at least 32 bits: the clock's low bits, compared modulo 2^31).
volatile std::sig_atomic_t g_first_ms = 0;
std::atomic<bool> g_acknowledged{false};  // the loop is acting on the signal
struct sigaction g_previous_int, g_previous_term, g_previous_hup;

int monotonic_ms() {
  struct timespec now {};
  clock_gettime(CLOCK_MONOTONIC, &now);  // async-signal-safe
  return static_cast<int>((static_cast<long long>(now.tv_sec) * 1000 + now.tv_nsec / 1000000) & 0x7fffffff);
}

extern "C" void record_signal(int signal) {
  if (g_received == 0) {
    g_received = signal;
    g_first_ms = monotonic_ms();
    return;
  }
  const int since = (monotonic_ms() - static_cast<int>(g_first_ms)) & 0x7fffffff;
  if (since < kSameStopRequestMs) return;  // the same request, reaching this process twice
  // A second request: the default action (ending the program), at once.
  struct sigaction fallback {};
  fallback.sa_handler = SIG_DFL;
  sigemptyset(&fallback.sa_mask);
  sigaction(signal, &fallback, nullptr);
  raise(signal);  // delivered when this handler returns (the signal is blocked in it)
}

}  // namespace

StopSignals::StopSignals(int notice_after_ms) {
  g_received = 0;
  g_acknowledged = false;
  struct sigaction action {};
  action.sa_handler = record_signal;
  sigemptyset(&action.sa_mask);
  sigaddset(&action.sa_mask, SIGINT);  // one handler at a time
  sigaddset(&action.sa_mask, SIGTERM);
  sigaddset(&action.sa_mask, SIGHUP);
  sigaction(SIGINT, &action, &g_previous_int);
  sigaction(SIGTERM, &action, &g_previous_term);
  // A closed terminal or SSH session; unless ignored already (nohup): the run goes on then.
  sigaction(SIGHUP, nullptr, &g_previous_hup);
  if (g_previous_hup.sa_handler != SIG_IGN) sigaction(SIGHUP, &action, nullptr);
  watcher_ = std::thread([this, notice_after_ms] { watch(notice_after_ms); });
}

void StopSignals::watch(int notice_after_ms) {
  std::unique_lock<std::mutex> lock(mutex_);
  bool noticed = false;
  while (!wake_.wait_for(lock, std::chrono::milliseconds(100), [this] { return done_; })) {
    const int signal = g_received;
    if (noticed || signal == 0 || g_acknowledged) continue;
    const int since = (monotonic_ms() - static_cast<int>(g_first_ms)) & 0x7fffffff;
    if (since < notice_after_ms) continue;
    noticed = true;
    spdlog::warn(
        "{} received {:.0f} s ago: the run stops with a checkpoint when the step or evaluation under way ends (in a "
        "data-parallel run it may be waiting for a rank that is gone, up to --dist-timeout); send it again to stop at "
        "once, without a checkpoint",
        signal_name(signal), since / 1000.0);
  }
}

StopSignals::~StopSignals() {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    done_ = true;
  }
  wake_.notify_one();
  watcher_.join();
  sigaction(SIGINT, &g_previous_int, nullptr);
  sigaction(SIGTERM, &g_previous_term, nullptr);
  sigaction(SIGHUP, &g_previous_hup, nullptr);
}

int StopSignals::received() { return g_received; }

void StopSignals::acknowledge() { g_acknowledged = true; }

std::string signal_name(int signal) {
  if (signal == SIGINT) return "SIGINT";
  if (signal == SIGTERM) return "SIGTERM";
  if (signal == SIGHUP) return "SIGHUP";
  return "signal " + std::to_string(signal);
}

}  // namespace dls::train

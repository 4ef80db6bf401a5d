#include "dls/train/stop_signals.h"

#include <signal.h>

#include <csignal>

namespace dls::train {

namespace {

volatile std::sig_atomic_t g_received = 0;
struct sigaction g_previous_int, g_previous_term;

extern "C" void record_signal(int signal) { g_received = signal; }

}  // namespace

StopSignals::StopSignals() {
  g_received = 0;
  struct sigaction action {};
  action.sa_handler = record_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESETHAND;  // a second signal: the default action, at once
  sigaction(SIGINT, &action, &g_previous_int);
  sigaction(SIGTERM, &action, &g_previous_term);
}

StopSignals::~StopSignals() {
  sigaction(SIGINT, &g_previous_int, nullptr);
  sigaction(SIGTERM, &g_previous_term, nullptr);
}

int StopSignals::received() { return g_received; }

std::string signal_name(int signal) {
  if (signal == SIGINT) return "SIGINT";
  if (signal == SIGTERM) return "SIGTERM";
  return "signal " + std::to_string(signal);
}

}  // namespace dls::train

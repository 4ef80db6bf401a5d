// A clean stop on SIGTERM or SIGINT: the signals are blocked in every thread (call
// block_stop_signals() first in main, before any thread starts) and one watcher thread
// waits for them, then calls the stop function -- no work inside a signal handler.
#pragma once

#include <atomic>
#include <functional>
#include <thread>

namespace dls::serve {

// Blocks SIGTERM and SIGINT in the calling thread; threads started afterwards inherit it.
void block_stop_signals();

// Calls `on_stop` (once, on its own thread) when SIGTERM or SIGINT arrives; a second one
// ends the process at once (status 128 + the signal), for a stop that waits too long.
class StopSignalWatcher {
 public:
  explicit StopSignalWatcher(std::function<void()> on_stop);
  ~StopSignalWatcher();  // stops watching
  StopSignalWatcher(const StopSignalWatcher&) = delete;
  StopSignalWatcher& operator=(const StopSignalWatcher&) = delete;
  int signal() const { return signal_; }  // the signal that arrived, 0 if none

 private:
  std::atomic<bool> done_{false};
  std::atomic<int> signal_{0};
  std::thread thread_;
};

}  // namespace dls::serve

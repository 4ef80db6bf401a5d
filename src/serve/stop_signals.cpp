#include "dls/serve/stop_signals.h"

#include <signal.h>
#include <time.h>

#include <cstdlib>

#include <spdlog/spdlog.h>

namespace dls::serve {

namespace {
sigset_t stop_set() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  return set;
}
}  // namespace

void block_stop_signals() {
  const sigset_t set = stop_set();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
}

StopSignalWatcher::StopSignalWatcher(std::function<void()> on_stop) {
  thread_ = std::thread([this, on_stop = std::move(on_stop)] {
    const sigset_t set = stop_set();
    const timespec tick{0, 100 * 1000 * 1000};  // look at done_ every 100 ms
    while (!done_) {
      const int got = sigtimedwait(&set, nullptr, &tick);
      if (got <= 0) continue;
      if (signal_ != 0) {
        // The second signal: the requests still in progress are given up (nothing is being
        // written; the server only reads its checkpoint).
        spdlog::warn("stopped by a second signal {}: the requests in progress were not answered", got);
        spdlog::shutdown();
        std::_Exit(128 + got);
      }
      signal_ = got;
      spdlog::info("signal {}: finishing the requests in progress (a second signal stops at once)", got);
      on_stop();
    }
  });
}

StopSignalWatcher::~StopSignalWatcher() {
  done_ = true;
  if (thread_.joinable()) thread_.join();
}

}  // namespace dls::serve

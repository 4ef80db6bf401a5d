// SIGINT, SIGTERM and SIGHUP (a closed terminal or SSH session; not under nohup, which
// ignores it) during training: the handler only records the signal; the training loop stops
// at the next step boundary, writes a checkpoint and throws TrainingInterrupted, which the
// programs turn into exit status 128 + signal (130, 143, 129). A second signal ends the
// program at once -- unless it comes within kSameStopRequestMs of the first: then it is the
// same request reaching the process twice (a terminal's Ctrl-C goes to torchrun and to every
// worker, and torchrun forwards it; `timeout` and Slurm signal the whole group), and ending at
// once would lose the work since the last checkpoint.
// A signal the loop has not acted on kStopNoticeMs later -- a long step or evaluation, or a
// data-parallel rank blocked in a collective by a rank that is gone (up to --dist-timeout) --
// gets one warning line saying so and that a second signal stops at once.
#pragma once

#include <condition_variable>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>

namespace dls::train {

inline constexpr int kSameStopRequestMs = 1000;
inline constexpr int kStopNoticeMs = 5000;

class StopSignals {
 public:
  // Installs the handlers, clears any earlier signal, and starts the thread that watches for
  // a signal not acted on `notice_after_ms` later.
  explicit StopSignals(int notice_after_ms = kStopNoticeMs);
  ~StopSignals();  // restores the previous handlers
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

  // The signal received since installation (SIGINT, SIGTERM or SIGHUP), 0 if none.
  static int received();
  // The loop acts on the signal received (it stops, checkpointing): no notice comes.
  static void acknowledge();

 private:
  void watch(int notice_after_ms);

  std::mutex mutex_;
  std::condition_variable wake_;
  bool done_ = false;
  std::thread watcher_;
};

// "SIGINT", "SIGTERM", "SIGHUP", or "signal N".
std::string signal_name(int signal);

// Thrown by the training loop after the checkpoint of an interrupted run is written.
class TrainingInterrupted : public std::runtime_error {
 public:
  TrainingInterrupted(const std::string& what, int signal) : std::runtime_error(what), signal_(signal) {}
  int signal() const { return signal_; }
  int exit_status() const { return 128 + signal_; }

 private:
  int signal_;
};

}  // namespace dls::train

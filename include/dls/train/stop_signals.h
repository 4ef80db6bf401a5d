// SIGINT, SIGTERM and SIGHUP (a closed terminal or SSH session; not under nohup, which
// ignores it) during training: the handler only records the signal; the training loop stops
// at the next step boundary, writes a checkpoint and throws TrainingInterrupted, which the
// programs turn into exit status 128 + signal (130, 143, 129). A second signal ends the
// program at once -- unless it comes within kSameStopRequestMs of the first: then it is the
// same request reaching the process twice (a terminal's Ctrl-C goes to torchrun and to every
// worker, and torchrun forwards it; `timeout` and Slurm signal the whole group), and ending at
// once would lose the work since the last checkpoint.
#pragma once

#include <stdexcept>
#include <string>

namespace dls::train {

inline constexpr int kSameStopRequestMs = 1000;

class StopSignals {
 public:
  StopSignals();   // installs the handlers and clears any earlier signal
  ~StopSignals();  // restores the previous handlers
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

  // The signal received since installation (SIGINT, SIGTERM or SIGHUP), 0 if none.
  static int received();
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

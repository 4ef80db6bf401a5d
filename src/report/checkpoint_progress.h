// The progress of a report over a run's checkpoints, one way for every kind: a log line as
// each checkpoint is evaluated, and from the second on a bar with the count, rate and ETA
// (none after the first, so that a bad first file gives nothing but its one-line error).
// Each checkpoint is run over a whole test set: a report of a run's 30 is long work.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>

#include <spdlog/spdlog.h>

#include "dls/util/progress.h"

namespace dls::report {

class CheckpointProgress {
 public:
  explicit CheckpointProgress(std::size_t checkpoints) : checkpoints_(checkpoints) {}

  // A line on `messages` (a checkpoint skipped, and why) in place of the live bar.
  void say(std::ostream& messages, const std::string& line) {
    if (bar_) bar_->clear_line();
    messages << line << "\n";
  }

  // The `done`-th checkpoint evaluated; `summary`: its scores, logged ("FILE: BLEU ...").
  void evaluated(std::size_t done, const std::string& summary) {
    if (bar_) bar_->clear_line();
    spdlog::info("{}", summary);
    if (!bar_ && checkpoints_ > 1) {
      util::ProgressOptions options;
      options.unit = "checkpoints";
      options.initial = 1;
      bar_.emplace(static_cast<std::int64_t>(checkpoints_), "evaluating", options);
    }
    if (bar_) bar_->update(static_cast<std::int64_t>(done));
  }

  void finish() {
    if (bar_) bar_->finish();
  }

 private:
  std::size_t checkpoints_;
  std::optional<util::ProgressBar> bar_;
};

}  // namespace dls::report

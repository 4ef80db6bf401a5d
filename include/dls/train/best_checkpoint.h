// The best checkpoint of a run and early stopping: after each evaluation the loop tells
// BestCheckpoint the chosen validation score (--best-metric); when it beats the best so far,
// <run>/best.pt becomes a hard link to that epoch's checkpoint (or, in an epoch without
// one, a checkpoint written there directly), and --keep-last spares the file it links to.
// --patience N ends the run after N evaluations in a row without a better score. The
// tracker's state travels in every checkpoint (text "best"), so --resume continues it.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>

namespace dls::train {

class BestCheckpoint {
 public:
  // `metric`: the score's name ("bleu", "loss", ...); `higher_is_better`: its direction;
  // `patience` > 0: evaluations without improvement that stop the run (0: never).
  BestCheckpoint(std::string metric, bool higher_is_better, std::int64_t patience);

  // One evaluation's score; true when it is the best so far (the first finite one is). A
  // score that is not finite never improves and counts against the patience.
  bool observe(std::int64_t epoch, double value);
  // Patience is on and that many evaluations in a row did not improve.
  bool out_of_patience() const { return patience_ > 0 && evaluations_without_improvement_ >= patience_; }

  // The checkpoint file name (no folder) that best.pt links to; "" when best.pt was written
  // directly. --keep-last never deletes it.
  const std::string& source() const { return source_; }
  void set_source(std::string file_name) { source_ = std::move(file_name); }

  const std::string& metric() const { return metric_; }
  double best_value() const { return best_value_; }
  std::int64_t best_epoch() const { return best_epoch_; }
  std::int64_t evaluations_without_improvement() const { return evaluations_without_improvement_; }
  std::int64_t patience() const { return patience_; }

  // The state as "key=value" lines, for the checkpoint, and back. restore() ignores a state
  // kept for another metric (the run changed --best-metric: the tracking starts afresh) and
  // throws std::runtime_error naming `source` for malformed text.
  std::string to_text() const;
  void restore(const std::string& text, const std::string& source);

 private:
  std::string metric_;
  bool higher_is_better_;
  std::int64_t patience_;
  double best_value_ = NAN;
  std::int64_t best_epoch_ = 0;  // 0: none yet
  std::int64_t evaluations_without_improvement_ = 0;
  std::string source_;
};

// Whether `metric` is better when higher: "loss" is lower-better, every other score
// ("bleu", "accuracy") higher-better.
bool higher_is_better(const std::string& metric);

// A score as the log shows it, with the digits it has: "accuracy 91.25%", "bleu 0.3305",
// "bleu 3.2e-05" (not 0.0000), "loss 2.064".
std::string score_text(const std::string& metric, double value);

}  // namespace dls::train

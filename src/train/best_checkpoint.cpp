#include "dls/train/best_checkpoint.h"

#include <utility>

#include <spdlog/fmt/fmt.h>

#include "dls/util/key_values.h"

namespace dls::train {

BestCheckpoint::BestCheckpoint(std::string metric, bool higher_is_better, std::int64_t patience)
    : metric_(std::move(metric)), higher_is_better_(higher_is_better), patience_(patience) {}

bool BestCheckpoint::observe(std::int64_t epoch, double value) {
  const bool better =
      std::isfinite(value) && (best_epoch_ == 0 || (higher_is_better_ ? value > best_value_ : value < best_value_));
  if (!better) {
    evaluations_without_improvement_ += 1;
    return false;
  }
  best_value_ = value;
  best_epoch_ = epoch;
  evaluations_without_improvement_ = 0;
  return true;
}

std::string BestCheckpoint::to_text() const {
  util::KeyValues state;
  state.set("metric", metric_);
  state.set("value", best_value_);
  state.set("epoch", best_epoch_);
  state.set("evaluations_without_improvement", evaluations_without_improvement_);
  state.set("source", source_);
  return state.to_text();
}

void BestCheckpoint::restore(const std::string& text, const std::string& source) {
  const auto state = util::KeyValues::from_text(text, source);
  if (state.get("metric") != metric_) return;
  best_value_ = state.get_double("value");
  best_epoch_ = state.get_int("epoch");
  evaluations_without_improvement_ = state.get_int("evaluations_without_improvement");
  source_ = state.get("source");
}

bool higher_is_better(const std::string& metric) { return metric != "loss"; }

std::string score_text(const std::string& metric, double value) {
  if (metric == "accuracy") return fmt::format("accuracy {:.2f}%", 100 * value);
  return fmt::format("{} {:.4g}", metric, value);
}

}  // namespace dls::train

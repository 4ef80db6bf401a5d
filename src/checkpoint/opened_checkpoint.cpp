#include "dls/checkpoint/opened_checkpoint.h"

#include <utility>

#include "dls/checkpoint/checkpoint_files.h"
#include "dls/checkpoint/run_id.h"

namespace dls::checkpoint {

std::unique_ptr<CheckpointReader> OpenedCheckpoint::open_now(const std::string& named, const std::string& kind) const {
  if (pick_ == Pick::kLatest) return std::make_unique<CheckpointReader>(latest_checkpoint(named), kind);
  return std::make_unique<CheckpointReader>(open_run_checkpoint(named, kind, RunCheckpoint::kNewest));
}

const CheckpointReader& OpenedCheckpoint::open(const std::string& named, const std::string& kind) {
  reader_.reset();  // one in memory at a time
  reader_ = open_now(named, kind);
  named_ = named;
  return *reader_;
}

std::unique_ptr<CheckpointReader> OpenedCheckpoint::take(const std::string& named, const std::string& kind) {
  auto kept = std::move(reader_);
  const bool same = kept != nullptr && named_ == named;
  named_.clear();
  if (!same) {
    kept.reset();
    return open_now(named, kind);
  }
  if (!kind.empty()) kept->check_kind(kind);
  return kept;
}

}  // namespace dls::checkpoint

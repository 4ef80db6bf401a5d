// A checkpoint a trainer program opens before its run starts, kept for the trainer: --resume's,
// whose settings the flags then change, and --init-from's, whose model the new run builds. The
// trainer takes it instead of opening the file again, so that a checkpoint is read, checked and
// loaded once per start (the dlstudio preset's are 3.4 GB each), and the file whose settings
// built the run is the file whose weights it reads, even while another run writes newer ones.
#pragma once

#include <memory>
#include <string>

#include "dls/checkpoint/checkpoint.h"

namespace dls::checkpoint {

class OpenedCheckpoint {
 public:
  // Which file a name opens.
  enum class Pick {
    kLatest,     // --resume's: the newest checkpoint of a run directory (latest_checkpoint), or the file named
    kRunNewest,  // --init-from's: the run's own newest (open_run_checkpoint, RunCheckpoint::kNewest)
  };
  explicit OpenedCheckpoint(Pick pick) : pick_(pick) {}

  // Opens the checkpoint `named` picks, of `kind` ("": any), and keeps it for take(). Throws as
  // the opening does (CheckpointError naming the file).
  const CheckpointReader& open(const std::string& named, const std::string& kind);

  // The checkpoint open() kept, when it was opened by the same name; otherwise `named`'s, opened
  // now (a torchrun restart resumes another file than the one named) after the kept one is let
  // go, so that one checkpoint at a time is in memory. Either way nothing is kept after.
  std::unique_ptr<CheckpointReader> take(const std::string& named, const std::string& kind);

 private:
  std::unique_ptr<CheckpointReader> open_now(const std::string& named, const std::string& kind) const;

  Pick pick_;
  std::string named_;
  std::unique_ptr<CheckpointReader> reader_;
};

// What a trainer program hands its trainer (train_seq2seq, train_lm, train_vit); a program that
// opened neither hands the empty one, and the trainer opens what it needs.
struct OpenedCheckpoints {
  OpenedCheckpoint resume{OpenedCheckpoint::Pick::kLatest};
  OpenedCheckpoint init_from{OpenedCheckpoint::Pick::kRunNewest};
};

}  // namespace dls::checkpoint

// Reports on the checkpoints of a ViT run (checkpoint_eval's ViT part): every checkpoint
// (kind "vit") evaluated on its test images, DLStudio's report (per-class and overall
// accuracy, the row-normalised confusion matrix) for the best of them, a table over all of
// them, confusion-matrix PNGs, optionally class-token attention maps and JSON.
#pragma once

#include <cstddef>
#include <iosfwd>
#include <string>
#include <vector>

#include "dls/checkpoint/checkpoint.h"
#include "dls/checkpoint/run_id.h"
#include "dls/eval/vit_evaluation.h"

namespace dls::report {

using eval::ViTCheckpointResult;

struct VitEvalRequest {
  std::string data_dir;              // non-empty: read the test images from here instead
  std::size_t test_subset = 0;       // > 0: first N test images only
  bool json = false;                 // one JSON object instead of the text report
  std::string attention_maps_dir;    // non-empty: write class-token attention PNGs here
  std::size_t attention_images = 8;  // images in the attention maps
  std::string output_dir;            // confusion-matrix PNGs (empty: the checkpoint's run dir)
  int threads = 0;                   // intra-op threads (0: all cores)
  std::string device = "cpu";        // cpu, cuda or auto
  checkpoint::Weights weights = checkpoint::Weights::kEvaluation;  // the moving average when saved, or the trained
  // Whose checkpoints are evaluated: a run directory's own (another run's, copied in, are named
  // on `messages` and left out), told as each file is read; default: every file given.
  checkpoint::RunMembership run;
};

// What the report covered.
struct ViTCheckpointReport {
  std::vector<ViTCheckpointResult> results;  // the readable files, in the order given
  std::size_t best = 0;                      // index in results (best_result)
  std::vector<std::string> files;            // written: confusion matrices, attention maps
};

// Evaluates every file (sorted by the caller as it likes), writes the PNGs and the report
// (or one JSON object) to `out`. An unreadable checkpoint among several is skipped and
// named on `messages` ("skipped: <why>"). Throws CheckpointError (a bad file) or
// std::runtime_error (one line) for anything else.
ViTCheckpointReport report_vit_checkpoints(const std::vector<std::string>& checkpoint_files,
                                           const VitEvalRequest& request, std::ostream& out, std::ostream& messages);

}  // namespace dls::report

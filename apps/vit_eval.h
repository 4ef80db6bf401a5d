// The ViT part of checkpoint_eval: evaluates visTransformer checkpoints (kind "vit") and
// prints DLStudio's report (per-class and overall accuracy, the row-normalised confusion
// matrix) for the best of them, a table over all of them, and optionally JSON.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace dls::apps {

struct VitEvalRequest {
  std::string data_dir;            // non-empty: read the test images from here instead
  std::size_t test_subset = 0;     // > 0: first N test images only
  bool json = false;               // print one JSON object instead of the text report
  std::string attention_maps_dir;  // non-empty: write class-token attention PNGs here
  std::size_t attention_images = 8;  // images in the attention maps
  std::string output_dir;          // confusion-matrix PNGs (empty: the checkpoint's run dir)
  int threads = 0;                 // intra-op threads (0: all cores)
  std::string device = "cpu";      // cpu, cuda or auto
};

// Evaluates every file (sorted by the caller as it likes) and prints the results to stdout.
// Returns 0, or 1 after printing a one-line error to stderr.
int run_vit_evaluation(const std::vector<std::string>& checkpoint_files, const VitEvalRequest& request);

}  // namespace dls::apps

// checkpoint_eval RUN --classify IMAGE...: each image (PNG or JPEG, any size) classified by a
// ViT run's model, its top classes with their probabilities, as a table or one JSON object.
#pragma once

#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include "dls/checkpoint/checkpoint.h"

namespace dls::report {

struct ClassifyRequest {
  std::vector<std::string> images;
  int top = 5;  // classes per image (at most the model's)
  bool json = false;
  std::string device = "cpu";
  checkpoint::Weights weights = checkpoint::Weights::kEvaluation;
};

// Classifies each image with RUN's best.pt, else its newest checkpoint (or the file given). An
// image that cannot be (missing, not PNG/JPEG, damaged) keeps its place in the output with
// its reason, and a line "error: FILE: reason" goes to `messages`; the others are classified,
// as a translation's failed sentence leaves the rest. Returns how many failed. Throws
// std::runtime_error (one line) for the checkpoint.
int report_image_classes(const std::string& checkpoint_or_run, const ClassifyRequest& request, std::ostream& out,
                         std::ostream& messages);
// The same with the checkpoint a program opened already (to learn its kind): read once, let go
// once the model is loaded.
int report_image_classes(std::unique_ptr<checkpoint::CheckpointReader> checkpoint, const ClassifyRequest& request,
                         std::ostream& out, std::ostream& messages);

}  // namespace dls::report

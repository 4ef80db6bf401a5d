// checkpoint_eval RUN --classify IMAGE...: each image (PNG or JPEG, any size) classified by a
// ViT run's model, its top classes with their probabilities, as a table or one JSON object.
#pragma once

#include <iosfwd>
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

// Reads every image first, so that a bad one (missing, not PNG/JPEG, damaged) stops the
// report with one line naming it (std::runtime_error) before anything is printed; then
// classifies each with RUN's best.pt, else its newest checkpoint (or the file given).
void report_image_classes(const std::string& checkpoint_or_run, const ClassifyRequest& request, std::ostream& out);

}  // namespace dls::report

#include "dls/report/image_classes_report.h"

#include <algorithm>
#include <memory>
#include <numeric>
#include <ostream>
#include <stdexcept>

#include <spdlog/fmt/fmt.h>

#include "dls/eval/image_classifier.h"
#include "dls/util/file_io.h"
#include "dls/util/image_file.h"
#include "dls/util/json.h"
#include "dls/util/table.h"

namespace dls::report {

using eval::ImageClassifier;
using eval::model_pixels;

namespace {

struct ClassifiedImage {
  std::string file;
  std::string error;  // why it could not be classified ("" when it was)
  int width = 0, height = 0;
  std::vector<std::size_t> top;  // class indices, most probable first
  std::vector<double> probabilities;
};

// Classifies request.images with `classifier`, each at the size its model reads.
int classify_images(ImageClassifier& classifier, const ClassifyRequest& request, std::ostream& out,
                    std::ostream& messages) {
  // Every file is read and its header checked, then decoded at the size the model needs
  // (model_pixels). A file that fails keeps its place with its error, the others are classified.
  std::vector<ClassifiedImage> results;
  std::vector<std::string> files;
  for (const auto& file : request.images) {
    ClassifiedImage r;
    r.file = file;
    files.emplace_back();
    try {
      files.back() = util::read_image_file(file);  // its errors name the file
      const auto size = util::read_image_size(files.back());
      r.width = size.width;
      r.height = size.height;
    } catch (const std::exception& e) {
      const std::string what = e.what();
      r.error = what.rfind(file + ": ", 0) == 0 ? what.substr(file.size() + 2) : what;
    }
    results.push_back(std::move(r));
  }
  const auto& names = classifier.class_names();
  const auto top = std::min<std::size_t>(static_cast<std::size_t>(request.top), names.size());
  int failed = 0;
  for (std::size_t i = 0; i < files.size(); ++i) {
    auto& r = results[i];
    if (r.error.empty()) {
      try {
        r.probabilities = classifier.classify(model_pixels(files[i], classifier.config())).probabilities;
      } catch (const std::exception& e) {
        r.error = e.what();
      }
    }
    if (!r.error.empty()) {
      messages << "error: " << r.file << ": " << r.error << "\n";
      ++failed;
      continue;
    }
    std::vector<std::size_t> order(names.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return r.probabilities[a] > r.probabilities[b]; });
    r.top.assign(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(top));
  }
  const int side = classifier.config().image_size();
  if (request.json) {
    util::JsonWriter json;
    json.begin_object().field("checkpoint", classifier.checkpoint_file()).field("image_size", side);
    json.key("images").begin_array();
    for (const auto& r : results) {
      json.begin_object().field("file", r.file);
      if (!r.error.empty()) {
        json.field("error", r.error).end_object();
        continue;
      }
      json.field("width", r.width).field("height", r.height);
      json.key("top").begin_array();
      for (const auto k : r.top) {
        json.begin_object().field("class", names[k]).field("probability", r.probabilities[k]).end_object();
      }
      json.end_array().end_object();
    }
    json.end_array().end_object();
    out << json.str() << "\n";
    return failed;
  }
  out << fmt::format("{}: {} classes, images resized to {}x{}\n", classifier.checkpoint_file(), names.size(), side,
                     side);
  for (const auto& r : results) {
    if (!r.error.empty()) {
      out << fmt::format("\n{}: not classified: {}\n", r.file, r.error);
      continue;
    }
    out << fmt::format("\n{} ({}x{}):\n", r.file, r.width, r.height);
    util::Table table({"rank", "class", "probability"}, {util::Align::kRight, util::Align::kLeft, util::Align::kRight});
    for (std::size_t j = 0; j < r.top.size(); ++j) {
      table.add_row({std::to_string(j + 1), names[r.top[j]], fmt::format("{:.4f}", r.probabilities[r.top[j]])});
    }
    out << table.to_string();
  }
  return failed;
}

}  // namespace

int report_image_classes(const std::string& checkpoint_or_run, const ClassifyRequest& request, std::ostream& out,
                         std::ostream& messages) {
  auto classifier = ImageClassifier::load(checkpoint_or_run, request.device, request.weights);
  return classify_images(classifier, request, out, messages);
}

int report_image_classes(std::unique_ptr<checkpoint::CheckpointReader> checkpoint, const ClassifyRequest& request,
                         std::ostream& out, std::ostream& messages) {
  auto classifier = ImageClassifier::load(*checkpoint, request.device, request.weights);
  checkpoint.reset();  // its weights are the model's now
  return classify_images(classifier, request, out, messages);
}

}  // namespace dls::report

#include "dls/report/image_classes_report.h"

#include <algorithm>
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
  int width = 0, height = 0;
  std::vector<std::size_t> top;  // class indices, most probable first
  std::vector<double> probabilities;
};

}  // namespace

void report_image_classes(const std::string& checkpoint_or_run, const ClassifyRequest& request, std::ostream& out) {
  // Every file is read and its header checked before the model loads; each is decoded at
  // the size the model needs (model_pixels), after it loads.
  std::vector<std::string> files;
  std::vector<util::PngSize> sizes;
  for (const auto& file : request.images) {
    files.push_back(util::read_image_file(file));  // its errors name the file
    try {
      sizes.push_back(util::read_image_size(files.back()));
    } catch (const std::exception& e) {
      throw std::runtime_error(file + ": " + e.what());
    }
  }
  auto classifier = ImageClassifier::load(checkpoint_or_run, request.device, request.weights);
  const auto& names = classifier.class_names();
  const auto top = std::min<std::size_t>(static_cast<std::size_t>(request.top), names.size());
  std::vector<ClassifiedImage> results;
  for (std::size_t i = 0; i < files.size(); ++i) {
    std::vector<std::uint8_t> pixels;
    try {
      pixels = model_pixels(files[i], classifier.config());
    } catch (const std::exception& e) {
      throw std::runtime_error(request.images[i] + ": " + e.what());
    }
    const auto classified = classifier.classify(pixels);
    ClassifiedImage r{request.images[i], sizes[i].width, sizes[i].height, {}, classified.probabilities};
    std::vector<std::size_t> order(names.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return r.probabilities[a] > r.probabilities[b]; });
    r.top.assign(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(top));
    results.push_back(std::move(r));
  }
  const int side = classifier.config().image_size();
  if (request.json) {
    util::JsonWriter json;
    json.begin_object().field("checkpoint", classifier.checkpoint_file()).field("image_size", side);
    json.key("images").begin_array();
    for (const auto& r : results) {
      json.begin_object().field("file", r.file).field("width", r.width).field("height", r.height);
      json.key("top").begin_array();
      for (const auto k : r.top) {
        json.begin_object().field("class", names[k]).field("probability", r.probabilities[k]).end_object();
      }
      json.end_array().end_object();
    }
    json.end_array().end_object();
    out << json.str() << "\n";
    return;
  }
  out << fmt::format("{}: {} classes, images resized to {}x{}\n", classifier.checkpoint_file(), names.size(), side,
                     side);
  for (const auto& r : results) {
    out << fmt::format("\n{} ({}x{}):\n", r.file, r.width, r.height);
    util::Table table({"rank", "class", "probability"}, {util::Align::kRight, util::Align::kLeft, util::Align::kRight});
    for (std::size_t j = 0; j < r.top.size(); ++j) {
      table.add_row({std::to_string(j + 1), names[r.top[j]], fmt::format("{:.4f}", r.probabilities[r.top[j]])});
    }
    out << table.to_string();
  }
}

}  // namespace dls::report

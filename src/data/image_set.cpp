// Class names and subsets of an ImageSet.
#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "dls/data/image_dataset.h"

namespace dls::data {

const std::vector<std::string>& fashion_mnist_class_names() {
  static const std::vector<std::string> names = {"T-shirt/top", "Trouser", "Pullover", "Dress", "Coat",
                                                 "Sandal",      "Shirt",   "Sneaker",  "Bag",   "Ankle boot"};
  return names;
}

const std::vector<std::string>& fashion_mnist_display_names() {
  static const std::vector<std::string> names = {"tshirt", "trouser", "pullovr", "dress", "coat",
                                                 "sandal", "shirt",   "sneaker", "bag",   "boot"};
  return names;
}

const std::vector<std::string>& cifar10_class_names() {
  static const std::vector<std::string> names = {"airplane", "automobile", "bird",  "cat",  "deer",
                                                 "dog",      "frog",       "horse", "ship", "truck"};
  return names;
}

const std::vector<std::string>& cifar10_display_names() {
  // DLStudio's confusion-matrix labels.
  static const std::vector<std::string> names = {"plane", "car",  "bird",  "cat",  "deer",
                                                 "dog",   "frog", "horse", "ship", "truck"};
  return names;
}

ImageSet select_images(const ImageSet& set, const std::vector<std::size_t>& indices) {
  ImageSet out;
  out.channels = set.channels;
  out.height = set.height;
  out.width = set.width;
  out.class_names = set.class_names;
  out.display_names = set.display_names;
  const std::size_t bytes = set.image_bytes();
  out.pixels.resize(indices.size() * bytes);
  out.labels.reserve(indices.size());
  for (std::size_t k = 0; k < indices.size(); ++k) {
    const std::size_t i = indices[k];
    if (i >= set.size()) {
      throw std::out_of_range("select_images: index " + std::to_string(i) + " at position " + std::to_string(k) +
                              " is beyond the " + std::to_string(set.size()) + " images");
    }
    std::copy_n(set.image(i), bytes, out.pixels.begin() + static_cast<std::ptrdiff_t>(k * bytes));
    out.labels.push_back(set.labels[i]);
  }
  return out;
}

ImageSet take_first(const ImageSet& set, std::size_t n) {
  std::vector<std::size_t> indices(std::min(n, set.size()));
  for (std::size_t i = 0; i < indices.size(); ++i) indices[i] = i;
  return select_images(set, indices);
}

ImageSet take_per_class(const ImageSet& set, std::size_t per_class) {
  std::vector<std::size_t> taken(std::max<std::size_t>(set.num_classes(), 1), 0);
  std::vector<std::size_t> indices;
  for (std::size_t i = 0; i < set.size(); ++i) {
    const std::size_t label = set.labels[i];
    if (label >= taken.size()) taken.resize(label + 1, 0);
    if (taken[label] < per_class) {
      ++taken[label];
      indices.push_back(i);
    }
  }
  return select_images(set, indices);
}

std::vector<std::size_t> class_counts(const ImageSet& set) {
  std::vector<std::size_t> counts(set.num_classes(), 0);
  for (const std::uint8_t label : set.labels) {
    if (label >= counts.size()) counts.resize(label + 1, 0);
    ++counts[label];
  }
  return counts;
}

}  // namespace dls::data

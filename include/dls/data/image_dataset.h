// Image classification datasets in memory: Fashion-MNIST (IDX files, gzip'd or not) and
// CIFAR-10 (binary version), plus subsets for quick runs. No LibTorch here: tensors are
// made by image_loader.h.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace dls::data {

// N images of C×H×W bytes, channel-planar like CIFAR-10's files and LibTorch's [N, C, H, W]:
// pixel (n, c, y, x) is pixels[((n * C + c) * H + y) * W + x].
struct ImageSet {
  int channels = 0;
  int height = 0;
  int width = 0;
  std::vector<std::uint8_t> pixels;        // N×C×H×W, values 0–255
  std::vector<std::uint8_t> labels;        // N, each < class_names.size()
  std::vector<std::string> class_names;    // the dataset's own names ("T-shirt/top", "airplane")
  std::vector<std::string> display_names;  // for tables: DLStudio's ("tshirt", "plane"), a folder's names whole

  std::size_t size() const { return labels.size(); }
  std::size_t num_classes() const { return class_names.size(); }
  std::size_t image_bytes() const {
    return static_cast<std::size_t>(channels) * static_cast<std::size_t>(height) * static_cast<std::size_t>(width);
  }
  // First byte of image i (C×H×W bytes follow).
  const std::uint8_t* image(std::size_t i) const { return pixels.data() + i * image_bytes(); }
};

enum class Split { kTrain, kTest };

// Debian's dataset-fashion-mnist installs the four .gz files here.
inline constexpr const char* kFashionMnistDir = "/usr/share/datasets/fashion-mnist";

// Reads train-images-idx3-ubyte(.gz) + train-labels-idx1-ubyte(.gz) (kTrain, 60,000 images)
// or t10k-* (kTest, 10,000), 1×28×28, 10 classes. For each file the .gz name is tried
// first, then the name without .gz. Throws std::runtime_error (one line naming the file)
// on a missing file, bad magic number, truncated or over-long file, corrupt gzip stream,
// image/label count mismatch or a label ≥ 10.
ImageSet read_fashion_mnist(const std::string& dir = kFashionMnistDir, Split split = Split::kTrain);

// Reads CIFAR-10's binary version from `dir` (or from dir/cifar-10-batches-bin):
// data_batch_1.bin … data_batch_5.bin (kTrain, 50,000 images) or test_batch.bin (kTest,
// 10,000). 3×32×32, 10 classes. Errors as above; a file whose length is not a multiple of
// the 3,073-byte record is rejected.
ImageSet read_cifar10(const std::string& dir, Split split = Split::kTrain);

// Lower-level readers, exposed for other files of the same formats.
// IDX image file (magic 0x00000803, dims N, H, W): fills channels = 1, height, width, pixels.
void read_idx_images(const std::string& path, ImageSet& set);
// IDX label file (magic 0x00000801, dim N): returns the N labels, each checked < num_classes.
std::vector<std::uint8_t> read_idx_labels(const std::string& path, std::size_t num_classes);
// CIFAR-10 binary files, concatenated in the order given.
ImageSet read_cifar10_files(const std::vector<std::string>& paths);

// Class names: full and short (≤ 7 characters, DLStudio's for CIFAR-10).
const std::vector<std::string>& fashion_mnist_class_names();
const std::vector<std::string>& fashion_mnist_display_names();
const std::vector<std::string>& cifar10_class_names();
const std::vector<std::string>& cifar10_display_names();

// The images at `indices` (any order, repeats allowed), same metadata.
// Throws std::out_of_range for an index ≥ set.size().
ImageSet select_images(const ImageSet& set, const std::vector<std::size_t>& indices);
// The first min(n, size) images.
ImageSet take_first(const ImageSet& set, std::size_t n);
// The first `per_class` images of every class (all of a class that has fewer), kept in
// their original order: a balanced subset for quick tests and demonstrations.
ImageSet take_per_class(const ImageSet& set, std::size_t per_class);

// Images per class: result[k] = number of images labelled k.
std::vector<std::size_t> class_counts(const ImageSet& set);

}  // namespace dls::data

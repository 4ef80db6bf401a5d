// CIFAR-10, binary version: each file is a sequence of 3,073-byte records, one label byte
// (0–9) then 3,072 pixel bytes: 1,024 red, 1,024 green, 1,024 blue, each plane 32×32
// row-major. That is already our channel-planar layout, so records are copied as they are.
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include <spdlog/spdlog.h>

#include "dls/data/image_dataset.h"
#include "dls/util/file_io.h"

namespace dls::data {

namespace {

constexpr int kCifarSide = 32;
constexpr int kCifarChannels = 3;
constexpr std::size_t kCifarImage = 3072;
constexpr std::size_t kCifarRecord = 1 + kCifarImage;
constexpr std::size_t kCifarTrainImages = 50000;

void append_cifar10_file(const std::string& path, ImageSet& set) {
  const std::string bytes = util::read_maybe_gzip_file(path);
  if (bytes.empty()) {
    throw std::runtime_error(path + ": empty file (expected records of " + std::to_string(kCifarRecord) + " bytes)");
  }
  if (bytes.size() % kCifarRecord != 0) {
    const std::size_t last = bytes.size() - bytes.size() % kCifarRecord;
    throw std::runtime_error(path + ": wrong size: " + std::to_string(bytes.size()) +
                             " bytes is not a multiple of the " + std::to_string(kCifarRecord) +
                             "-byte record (truncated record at byte offset " + std::to_string(last) + ")");
  }
  const std::size_t records = bytes.size() / kCifarRecord;
  const std::size_t classes = set.class_names.size();
  for (std::size_t r = 0; r < records; ++r) {
    const std::size_t offset = r * kCifarRecord;
    const auto label = static_cast<std::uint8_t>(bytes[offset]);
    if (label >= classes) {
      throw std::runtime_error(path + ": label " + std::to_string(label) + " at byte offset " + std::to_string(offset) +
                               " (record " + std::to_string(r) + ") is out of range (" + std::to_string(classes) +
                               " classes)");
    }
    set.labels.push_back(label);
    set.pixels.insert(set.pixels.end(), bytes.begin() + static_cast<std::ptrdiff_t>(offset + 1),
                      bytes.begin() + static_cast<std::ptrdiff_t>(offset + kCifarRecord));
  }
}

}  // namespace

ImageSet read_cifar10_files(const std::vector<std::string>& paths) {
  ImageSet set;
  set.channels = kCifarChannels;
  set.height = kCifarSide;
  set.width = kCifarSide;
  set.class_names = cifar10_class_names();
  set.display_names = cifar10_display_names();
  set.pixels.reserve(paths.size() > 1 ? kCifarTrainImages * kCifarImage : 0);
  for (const std::string& path : paths) append_cifar10_file(path, set);
  return set;
}

ImageSet read_cifar10(const std::string& dir, Split split) {
  namespace fs = std::filesystem;
  std::vector<std::string> names;
  if (split == Split::kTrain) {
    for (int i = 1; i <= 5; ++i) names.push_back("data_batch_" + std::to_string(i) + ".bin");
  } else {
    names.push_back("test_batch.bin");
  }
  // The official archive unpacks into cifar-10-batches-bin/: accept its parent too.
  fs::path base(dir);
  if (!fs::exists(base / names[0]) && fs::exists(base / "cifar-10-batches-bin" / names[0])) {
    base /= "cifar-10-batches-bin";
  }
  std::vector<std::string> paths;
  for (const std::string& name : names) {
    const fs::path path = base / name;
    if (!fs::exists(path)) throw std::runtime_error(path.string() + ": missing file");
    paths.push_back(path.string());
  }
  ImageSet set = read_cifar10_files(paths);
  spdlog::debug("CIFAR-10: {} images from {}", set.size(), base.string());
  return set;
}

}  // namespace dls::data

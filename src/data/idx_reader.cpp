// Fashion-MNIST in the IDX format of LeCun's MNIST: a big-endian header (magic number
// 0x000008nn: unsigned bytes, nn dimensions; then one 32-bit size per dimension) followed
// by the raw bytes, row-major.
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include <spdlog/spdlog.h>

#include "dls/data/image_dataset.h"
#include "dls/util/file_io.h"

namespace dls::data {

namespace {

constexpr std::uint32_t kIdxImageMagic = 0x00000803;  // unsigned bytes, 3 dimensions
constexpr std::uint32_t kIdxLabelMagic = 0x00000801;  // unsigned bytes, 1 dimension

std::uint32_t read_be32(const std::string& bytes, std::size_t offset) {
  std::uint32_t value = 0;
  for (std::size_t i = 0; i < 4; ++i) {
    value = (value << 8) | static_cast<unsigned char>(bytes[offset + i]);
  }
  return value;
}

std::string hex32(std::uint32_t value) {
  char text[16];
  std::snprintf(text, sizeof(text), "0x%08x", value);
  return text;
}

// Checks the header and the total length; returns the dimensions. The data start at
// byte 4 + 4 × dims.size().
std::vector<std::uint64_t> parse_idx_header(const std::string& bytes, const std::string& path, std::uint32_t magic) {
  const std::size_t ndims = magic & 0xff;
  const std::size_t header = 4 + 4 * ndims;
  const std::string size = std::to_string(bytes.size()) + " bytes";
  if (bytes.size() < 4) {
    throw std::runtime_error(path + ": truncated: " + size + ", shorter than the IDX magic number");
  }
  const std::uint32_t found = read_be32(bytes, 0);
  if (found != magic) {
    throw std::runtime_error(path + ": bad magic number " + hex32(found) + " at byte 0 (expected " + hex32(magic) +
                             ": IDX file of unsigned bytes, " + std::to_string(ndims) + " dimension(s))");
  }
  if (bytes.size() < header) {
    throw std::runtime_error(path + ": truncated: " + size + ", the IDX header needs " + std::to_string(header));
  }
  std::vector<std::uint64_t> dims;
  std::string dims_text;
  // Each dimension is < 2^32, so the running product can be checked against a limit
  // before it overflows 64 bits.
  std::uint64_t expected = 1;
  bool overflow = false;
  for (std::size_t d = 0; d < ndims; ++d) {
    dims.push_back(read_be32(bytes, 4 + 4 * d));
    dims_text += (d == 0 ? "" : "x") + std::to_string(dims.back());
    if (dims.back() != 0 && expected > (UINT64_MAX >> 1) / dims.back()) overflow = true;
    expected *= dims.back();
  }
  expected += header;
  if (overflow || bytes.size() > expected) {
    throw std::runtime_error(path + ": wrong size: " + size + ", but the header's dimensions " + dims_text + " give " +
                             (overflow ? std::string("an impossible size") : std::to_string(expected)));
  }
  if (bytes.size() < expected) {
    throw std::runtime_error(path + ": truncated: " + size + ", the header's dimensions " + dims_text + " need " +
                             std::to_string(expected));
  }
  return dims;
}

// `dir/name.gz` when present, else `dir/name`.
std::string find_idx_file(const std::string& dir, const std::string& name) {
  namespace fs = std::filesystem;
  const fs::path gz = fs::path(dir) / (name + ".gz");
  if (fs::exists(gz)) return gz.string();
  const fs::path raw = fs::path(dir) / name;
  if (fs::exists(raw)) return raw.string();
  throw std::runtime_error(gz.string() + ": missing file (and no uncompressed " + name + " beside it)");
}

}  // namespace

void read_idx_images(const std::string& path, ImageSet& set) {
  const std::string bytes = util::read_maybe_gzip_file(path);
  const std::vector<std::uint64_t> dims = parse_idx_header(bytes, path, kIdxImageMagic);
  if (dims[1] == 0 || dims[2] == 0 || dims[1] > 65535 || dims[2] > 65535) {
    throw std::runtime_error(path + ": image size " + std::to_string(dims[1]) + "x" + std::to_string(dims[2]) +
                             " at byte 8 is not usable");
  }
  set.channels = 1;
  set.height = static_cast<int>(dims[1]);
  set.width = static_cast<int>(dims[2]);
  set.pixels.assign(bytes.begin() + 16, bytes.end());
}

std::vector<std::uint8_t> read_idx_labels(const std::string& path, std::size_t num_classes) {
  const std::string bytes = util::read_maybe_gzip_file(path);
  parse_idx_header(bytes, path, kIdxLabelMagic);
  constexpr std::size_t kHeader = 8;
  std::vector<std::uint8_t> labels(bytes.begin() + kHeader, bytes.end());
  for (std::size_t i = 0; i < labels.size(); ++i) {
    if (labels[i] >= num_classes) {
      throw std::runtime_error(path + ": label " + std::to_string(labels[i]) + " at byte offset " +
                               std::to_string(kHeader + i) + " (item " + std::to_string(i) + ") is out of range (" +
                               std::to_string(num_classes) + " classes)");
    }
  }
  return labels;
}

ImageSet read_fashion_mnist(const std::string& dir, Split split) {
  const std::string prefix = split == Split::kTrain ? "train" : "t10k";
  const std::string images_path = find_idx_file(dir, prefix + "-images-idx3-ubyte");
  const std::string labels_path = find_idx_file(dir, prefix + "-labels-idx1-ubyte");
  ImageSet set;
  set.class_names = fashion_mnist_class_names();
  set.display_names = fashion_mnist_display_names();
  read_idx_images(images_path, set);
  set.labels = read_idx_labels(labels_path, set.class_names.size());
  const std::size_t images = set.pixels.size() / set.image_bytes();
  if (images != set.labels.size()) {
    throw std::runtime_error(labels_path + ": " + std::to_string(set.labels.size()) + " labels, but " + images_path +
                             " holds " + std::to_string(images) + " images");
  }
  spdlog::debug("Fashion-MNIST: {} images of {}x{} from {}", set.size(), set.height, set.width, images_path);
  return set;
}

}  // namespace dls::data

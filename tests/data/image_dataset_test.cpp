#include "dls/data/image_dataset.h"

#include <gtest/gtest.h>

#include <array>
#include <chrono>
#include <filesystem>
#include <functional>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "support/idx_files.h"
#include "util/temp_files.h"

namespace dls::data {
namespace {

namespace fs = std::filesystem;
using test::fresh_temp_dir;
using test::gzip_bytes;
using test::idx_images;
using test::idx_labels;
using test::write_bytes;

// Runs `read`, expects a std::runtime_error with a one-line message holding every part.
void expect_error(const std::function<void()>& read, const std::vector<std::string>& parts) {
  try {
    read();
    ADD_FAILURE() << "no exception; expected: " << parts.back();
  } catch (const std::runtime_error& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
    for (const std::string& part : parts) EXPECT_NE(what.find(part), std::string::npos) << what;
  }
}

// ---- Fashion-MNIST, the real files -------------------------------------------------------

bool have_fashion_mnist() { return fs::exists(fs::path(kFashionMnistDir) / "train-images-idx3-ubyte.gz"); }

#define SKIP_WITHOUT_FASHION_MNIST() \
  if (!have_fashion_mnist()) GTEST_SKIP() << kFashionMnistDir << " is absent (Debian package dataset-fashion-mnist)"

TEST(FashionMnist, TrainingSetHasKnownCountsAndPixels) {
  SKIP_WITHOUT_FASHION_MNIST();
  const auto start = std::chrono::steady_clock::now();
  const ImageSet set = read_fashion_mnist(kFashionMnistDir, Split::kTrain);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  RecordProperty("load_seconds", std::to_string(seconds));
  ASSERT_EQ(set.size(), 60000U);
  EXPECT_EQ(set.channels, 1);
  EXPECT_EQ(set.height, 28);
  EXPECT_EQ(set.width, 28);
  EXPECT_EQ(set.pixels.size(), 60000U * 784U);
  // Balanced: 6,000 images of each of the 10 classes.
  EXPECT_EQ(class_counts(set), std::vector<std::size_t>(10, 6000));
  // First labels of the official file: ankle boot, T-shirt, T-shirt, dress, …
  EXPECT_EQ(std::vector<int>(set.labels.begin(), set.labels.begin() + 6), (std::vector<int>{9, 0, 0, 3, 0, 2}));
  // Mean pixel of the training set: 72.94 (0.2860 × 255), the usual normalisation mean.
  const double mean =
      std::accumulate(set.pixels.begin(), set.pixels.end(), 0.0) / static_cast<double>(set.pixels.size());
  EXPECT_GE(mean, 72.0);
  EXPECT_LE(mean, 74.0);
  EXPECT_EQ(set.class_names[9], "Ankle boot");
}

TEST(FashionMnist, TestSetHasKnownCounts) {
  SKIP_WITHOUT_FASHION_MNIST();
  const ImageSet set = read_fashion_mnist(kFashionMnistDir, Split::kTest);
  ASSERT_EQ(set.size(), 10000U);
  EXPECT_EQ(class_counts(set), std::vector<std::size_t>(10, 1000));
  EXPECT_EQ(std::vector<int>(set.labels.begin(), set.labels.begin() + 5), (std::vector<int>{9, 2, 1, 1, 6}));
  // Row 14 of the first test image starts with 0 0 0 0 0 0 2 4 1 and holds 98 at x = 12.
  EXPECT_EQ(set.image(0)[14 * 28 + 7], 4);
  EXPECT_EQ(set.image(0)[14 * 28 + 12], 98);
}

// ---- IDX files written here ----------------------------------------------------------------

TEST(FashionMnist, ReadsGzippedAndPlainFiles) {
  const fs::path dir = fresh_temp_dir("idx_ok");
  write_bytes(dir / "t10k-images-idx3-ubyte.gz", gzip_bytes(idx_images(3, 4, 5)));
  write_bytes(dir / "t10k-labels-idx1-ubyte", idx_labels({7, 0, 9}));  // not compressed
  const ImageSet set = read_fashion_mnist(dir.string(), Split::kTest);
  ASSERT_EQ(set.size(), 3U);
  EXPECT_EQ(set.height, 4);
  EXPECT_EQ(set.width, 5);
  EXPECT_EQ(set.labels, (std::vector<std::uint8_t>{7, 0, 9}));
  EXPECT_EQ(set.image(2)[3 * 5 + 4], (2 * 31 + 3 * 7 + 4) & 255);
  EXPECT_EQ(set.display_names.size(), 10U);
  for (const std::string& name : set.display_names) EXPECT_LE(name.size(), 7U) << name;
}

TEST(FashionMnistErrors, MissingFile) {
  const fs::path dir = fresh_temp_dir("idx_missing");
  expect_error([&] { read_fashion_mnist(dir.string(), Split::kTest); },
               {(dir / "t10k-images-idx3-ubyte.gz").string(), "missing file"});
}

// Writes images and labels files into a fresh directory and expects an error naming `file`.
void expect_idx_error(const std::string& images, const std::string& labels, const std::string& file,
                      const std::string& problem) {
  const fs::path dir = fresh_temp_dir("idx_error");
  write_bytes(dir / "train-images-idx3-ubyte", images);
  write_bytes(dir / "train-labels-idx1-ubyte", labels);
  expect_error([&] { read_fashion_mnist(dir.string(), Split::kTrain); }, {(dir / file).string() + ":", problem});
}

TEST(FashionMnistErrors, BadMagicNumber) {
  expect_idx_error(idx_images(2, 3, 3, 0x00000801), idx_labels({1, 2}), "train-images-idx3-ubyte",
                   "bad magic number 0x00000801 at byte 0 (expected 0x00000803");
  std::string labels = idx_labels({1, 2});
  labels[3] = 3;
  expect_idx_error(idx_images(2, 3, 3), labels, "train-labels-idx1-ubyte", "bad magic number 0x00000803");
}

TEST(FashionMnistErrors, TruncatedFiles) {
  const std::string images = idx_images(2, 3, 3);
  expect_idx_error(images.substr(0, images.size() - 1), idx_labels({1, 2}), "train-images-idx3-ubyte",
                   "truncated: 33 bytes, the header's dimensions 2x3x3 need 34");
  expect_idx_error(images.substr(0, 10), idx_labels({1, 2}), "train-images-idx3-ubyte",
                   "truncated: 10 bytes, the IDX header needs 16");
  expect_idx_error(images.substr(0, 2), idx_labels({1, 2}), "train-images-idx3-ubyte", "truncated: 2 bytes");
  expect_idx_error(images, idx_labels({1, 2}).substr(0, 9), "train-labels-idx1-ubyte",
                   "truncated: 9 bytes, the header's dimensions 2 need 10");
}

TEST(FashionMnistErrors, SizeNotMatchingTheHeader) {
  expect_idx_error(idx_images(2, 3, 3) + "xyz", idx_labels({1, 2}), "train-images-idx3-ubyte",
                   "wrong size: 37 bytes, but the header's dimensions 2x3x3 give 34");
}

TEST(FashionMnistErrors, CountMismatch) {
  expect_idx_error(idx_images(3, 2, 2), idx_labels({1, 2}), "train-labels-idx1-ubyte", "2 labels, but");
}

TEST(FashionMnistErrors, LabelOutOfRange) {
  expect_idx_error(idx_images(3, 2, 2), idx_labels({1, 2, 10}), "train-labels-idx1-ubyte",
                   "label 10 at byte offset 10 (item 2) is out of range (10 classes)");
}

TEST(FashionMnistErrors, CorruptGzipStream) {
  const fs::path dir = fresh_temp_dir("idx_gzip");
  std::string packed = gzip_bytes(idx_images(2, 3, 3));
  packed[packed.size() - 6] ^= 0x55;  // inside the CRC-32 trailer: only the check fails
  write_bytes(dir / "t10k-images-idx3-ubyte.gz", packed);
  write_bytes(dir / "t10k-labels-idx1-ubyte", idx_labels({1, 2}));
  expect_error([&] { read_fashion_mnist(dir.string(), Split::kTest); },
               {(dir / "t10k-images-idx3-ubyte.gz").string(), "corrupt gzip stream"});
  const std::string whole = gzip_bytes(idx_images(2, 3, 3));
  write_bytes(dir / "t10k-images-idx3-ubyte.gz", whole.substr(0, whole.size() - 10));
  expect_error([&] { read_fashion_mnist(dir.string(), Split::kTest); },
               {(dir / "t10k-images-idx3-ubyte.gz").string(), "truncated gzip stream"});
}

// ---- CIFAR-10 files written here -----------------------------------------------------------

constexpr std::size_t kRecord = 3073;

// Expected byte of image `id` at (c, y, x): distinct across channels, rows and columns.
std::uint8_t cifar_pixel(int id, int c, int y, int x) {
  return static_cast<std::uint8_t>((id * 13 + c * 85 + y * 5 + x * 3) & 255);
}

// Records in CIFAR-10's layout: label byte, then the R, G, B planes, each 32×32 row-major.
std::string cifar_records(const std::vector<int>& ids, const std::vector<int>& labels) {
  std::string bytes;
  for (std::size_t r = 0; r < ids.size(); ++r) {
    bytes += static_cast<char>(labels[r]);
    for (int c = 0; c < 3; ++c)
      for (int y = 0; y < 32; ++y)
        for (int x = 0; x < 32; ++x) bytes += static_cast<char>(cifar_pixel(ids[r], c, y, x));
  }
  return bytes;
}

fs::path write_cifar_dir(const std::string& name) {
  const fs::path dir = fresh_temp_dir(name);
  for (int b = 1; b <= 5; ++b) {
    const int id = 2 * (b - 1);
    write_bytes(dir / ("data_batch_" + std::to_string(b) + ".bin"),
                cifar_records({id, id + 1}, {id % 10, (id + 3) % 10}));
  }
  write_bytes(dir / "test_batch.bin", cifar_records({100, 101, 102}, {9, 0, 4}));
  return dir;
}

TEST(Cifar10, PlanarLayoutAndFileOrder) {
  const fs::path dir = write_cifar_dir("cifar_ok");
  const ImageSet train = read_cifar10(dir.string(), Split::kTrain);
  ASSERT_EQ(train.size(), 10U);
  EXPECT_EQ(train.channels, 3);
  EXPECT_EQ(train.height, 32);
  EXPECT_EQ(train.width, 32);
  for (int n = 0; n < 10; ++n) {
    EXPECT_EQ(train.labels[static_cast<std::size_t>(n)], n % 2 == 0 ? n % 10 : (n - 1 + 3) % 10);
  }
  // Image n of the set is record n of the concatenated files; check a few (c, y, x).
  for (const auto& [n, c, y, x] :
       std::vector<std::array<int, 4>>{{0, 0, 0, 0}, {3, 1, 5, 30}, {7, 2, 31, 31}, {9, 2, 16, 2}}) {
    const std::size_t at = ((static_cast<std::size_t>(n) * 3 + c) * 32 + y) * 32 + x;
    EXPECT_EQ(train.pixels[at], cifar_pixel(n, c, y, x)) << n << " " << c << " " << y << " " << x;
    EXPECT_EQ(train.image(static_cast<std::size_t>(n))[(c * 32 + y) * 32 + x], cifar_pixel(n, c, y, x));
  }
  EXPECT_EQ(train.display_names[0], "plane");
  EXPECT_EQ(train.class_names[1], "automobile");

  const ImageSet test = read_cifar10(dir.string(), Split::kTest);
  ASSERT_EQ(test.size(), 3U);
  EXPECT_EQ(test.labels, (std::vector<std::uint8_t>{9, 0, 4}));
  EXPECT_EQ(test.image(2)[(1 * 32 + 4) * 32 + 9], cifar_pixel(102, 1, 4, 9));
}

TEST(Cifar10, AcceptsTheArchiveFolder) {
  const fs::path parent = fresh_temp_dir("cifar_parent");
  const fs::path dir = write_cifar_dir("cifar_inner");
  fs::rename(dir, parent / "cifar-10-batches-bin");
  EXPECT_EQ(read_cifar10(parent.string(), Split::kTest).size(), 3U);
}

TEST(Cifar10Errors, MissingFile) {
  const fs::path dir = write_cifar_dir("cifar_missing");
  fs::remove(dir / "data_batch_5.bin");
  expect_error([&] { read_cifar10(dir.string(), Split::kTrain); },
               {(dir / "data_batch_5.bin").string(), "missing file"});
  expect_error([&] { read_cifar10_files({(dir / "nothing.bin").string()}); },
               {(dir / "nothing.bin").string(), "cannot open"});
}

TEST(Cifar10Errors, WrongSizeAndEmptyFile) {
  const fs::path dir = write_cifar_dir("cifar_size");
  const std::string two = cifar_records({0, 1}, {1, 2});
  write_bytes(dir / "test_batch.bin", two.substr(0, 2 * kRecord - 100));
  expect_error([&] { read_cifar10(dir.string(), Split::kTest); },
               {(dir / "test_batch.bin").string(),
                "wrong size: 6046 bytes is not a multiple of the 3073-byte record "
                "(truncated record at byte offset 3073)"});
  write_bytes(dir / "test_batch.bin", "");
  expect_error([&] { read_cifar10(dir.string(), Split::kTest); }, {(dir / "test_batch.bin").string(), "empty file"});
}

TEST(Cifar10Errors, LabelOutOfRange) {
  const fs::path dir = write_cifar_dir("cifar_label");
  write_bytes(dir / "data_batch_3.bin", cifar_records({0, 1, 2}, {1, 2, 10}));
  expect_error(
      [&] { read_cifar10(dir.string(), Split::kTrain); },
      {(dir / "data_batch_3.bin").string(), "label 10 at byte offset 6146 (record 2) is out of range (10 classes)"});
}

// ---- subsets ----------------------------------------------------------------------------

ImageSet small_set(const std::vector<int>& labels) {
  ImageSet set;
  set.channels = 1;
  set.height = 1;
  set.width = 2;
  set.class_names = {"a", "b", "c"};
  for (std::size_t i = 0; i < labels.size(); ++i) {
    set.labels.push_back(static_cast<std::uint8_t>(labels[i]));
    set.pixels.push_back(static_cast<std::uint8_t>(2 * i));
    set.pixels.push_back(static_cast<std::uint8_t>(2 * i + 1));
  }
  return set;
}

TEST(ImageSubsets, FirstN) {
  const ImageSet set = small_set({0, 1, 0, 2, 0, 1});
  const ImageSet first = take_first(set, 4);
  EXPECT_EQ(first.labels, (std::vector<std::uint8_t>{0, 1, 0, 2}));
  EXPECT_EQ(first.pixels, (std::vector<std::uint8_t>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(first.class_names, set.class_names);
  EXPECT_EQ(take_first(set, 100).size(), 6U);
}

TEST(ImageSubsets, PerClassKeepsOrderAndBalance) {
  const ImageSet set = small_set({0, 1, 0, 2, 0, 1, 2, 2});
  const ImageSet sub = take_per_class(set, 2);
  // Images 0, 1, 2, 3, 5, 6: the first two of every class, in their original order.
  EXPECT_EQ(sub.labels, (std::vector<std::uint8_t>{0, 1, 0, 2, 1, 2}));
  EXPECT_EQ(sub.image(4)[0], 10);
  EXPECT_EQ(sub.image(5)[1], 13);
  EXPECT_EQ(class_counts(sub), (std::vector<std::size_t>{2, 2, 2}));
  EXPECT_EQ(class_counts(take_per_class(set, 3)), (std::vector<std::size_t>{3, 2, 3}));
}

TEST(ImageSubsets, SelectRejectsBadIndex) {
  const ImageSet set = small_set({0, 1});
  EXPECT_EQ(select_images(set, {1, 1, 0}).labels, (std::vector<std::uint8_t>{1, 1, 0}));
  EXPECT_THROW(select_images(set, {0, 2}), std::out_of_range);
}

}  // namespace
}  // namespace dls::data

#include "dls/util/png.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <random>

#include "dls/util/file_io.h"
#include "util/png_reader.h"
#include "util/temp_files.h"

namespace dls::util {
namespace {

namespace fs = std::filesystem;

std::vector<std::uint8_t> random_pixels(std::size_t count, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<std::uint8_t> pixels(count);
  for (auto& p : pixels) p = static_cast<std::uint8_t>(rng() & 0xFF);
  return pixels;
}

class PngRoundTrip : public ::testing::TestWithParam<int> {};

TEST_P(PngRoundTrip, DecodesToTheSamePixels) {
  const int channels = GetParam(), width = 13, height = 7;
  const auto pixels = random_pixels(static_cast<std::size_t>(width) * height * channels, channels);
  const test::DecodedPng png = test::decode_png(encode_png(width, height, channels, pixels.data()));
  EXPECT_EQ(png.width, width);
  EXPECT_EQ(png.height, height);
  EXPECT_EQ(png.channels, channels);
  EXPECT_EQ(png.pixels, pixels);
  EXPECT_EQ(png.chunk_types, (std::vector<std::string>{"IHDR", "IDAT", "IEND"}));
}

INSTANTIATE_TEST_SUITE_P(Channels, PngRoundTrip, ::testing::Values(1, 3, 4));

TEST(Png, KnownBytesOfATinyImage) {
  const std::uint8_t red[] = {255, 0, 0};
  const std::string png = encode_png(1, 1, 3, red);
  // IHDR: 13 bytes of data; width 1, height 1, depth 8, colour type 2; its CRC is fixed.
  EXPECT_EQ(png.substr(8, 8), std::string("\0\0\0\x0dIHDR", 8));
  EXPECT_EQ(png.substr(16, 13), std::string("\0\0\0\x01\0\0\0\x01\x08\x02\0\0\0", 13));
  EXPECT_EQ(png.substr(29, 4), "\x90\x77\x53\xde");
  EXPECT_EQ(png.substr(png.size() - 12), std::string("\0\0\0\0IEND\xae\x42\x60\x82", 12));
}

TEST(Png, CorruptionIsCaughtByTheCrc) {
  const auto pixels = random_pixels(4 * 4 * 3, 1);
  std::string png = encode_png(4, 4, 3, pixels.data());
  png[20] ^= 1;  // a bit of the width
  EXPECT_THROW(test::decode_png(png), std::runtime_error);
}

TEST(Png, RejectsBadArguments) {
  const std::uint8_t pixel[4] = {};
  EXPECT_THROW(encode_png(1, 1, 2, pixel), std::invalid_argument);
  EXPECT_THROW(encode_png(0, 1, 3, pixel), std::invalid_argument);
  EXPECT_THROW(encode_png(1, 1, 3, nullptr), std::invalid_argument);
}

TEST(Png, WritesTheFileAtomically) {
  const fs::path dir = test::process_temp_path("png");
  fs::remove_all(dir);
  fs::create_directories(dir);
  const auto pixels = random_pixels(20 * 10, 2);
  const std::string path = (dir / "gray.png").string();
  write_png(path, 20, 10, 1, pixels.data());
  EXPECT_EQ(read_file(path), encode_png(20, 10, 1, pixels.data()));
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 1);
  try {
    write_png((dir / "missing" / "x.png").string(), 20, 10, 1, pixels.data());
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("missing/x.png"), std::string::npos) << e.what();
  }
  // An independent checker, when the machine has one.
  if (fs::exists("/usr/bin/pngcheck")) {
    EXPECT_EQ(std::system(("/usr/bin/pngcheck -q " + path).c_str()), 0);
  }
}

}  // namespace
}  // namespace dls::util

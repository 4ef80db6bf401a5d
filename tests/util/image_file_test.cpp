#include "dls/util/image_file.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <string>

#include "support/image_files.h"
#include "util/temp_files.h"

namespace dls::util::image_file_test {
namespace {

void expect_invalid(const std::string& bytes, const std::string& part) {
  try {
    decode_image(bytes);
    ADD_FAILURE() << "no error; expected '" << part << "'";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
  }
}

TEST(ImageFile, PngAndJpegDecodeToTheirPixels) {
  const auto image = test::solid_image(13, 9, 200, 40, 90);
  const auto png = decode_image(test::png_of(image));
  EXPECT_EQ(png.width, 13);
  EXPECT_EQ(png.height, 9);
  EXPECT_EQ(png.rgb, image.rgb);
  // JPEG is lossy (and subsamples colour at edges): a flat image comes back within a few levels.
  auto flat = image;
  for (std::size_t i = 0; i < flat.rgb.size(); i += 3) flat.rgb[i] = 200, flat.rgb[i + 1] = 40, flat.rgb[i + 2] = 90;
  const auto jpeg = decode_image(test::jpeg_of(flat, 100));
  ASSERT_EQ(jpeg.width, 13);
  ASSERT_EQ(jpeg.height, 9);
  ASSERT_EQ(jpeg.rgb.size(), flat.rgb.size());
  for (std::size_t i = 0; i < flat.rgb.size(); ++i) EXPECT_NEAR(jpeg.rgb[i], flat.rgb[i], 4) << "byte " << i;
  const auto grey = decode_image(test::jpeg_of(test::solid_image(8, 8, 120, 120, 120), 95, true));
  EXPECT_TRUE(grey.is_grey());
}

// CMYK and YCCK JPEGs (Photoshop's, with the Adobe marker's inverted values) decode to the
// colours they hold; libjpeg converts neither to RGB by itself ("Unsupported color
// conversion request", which read as a damaged file).
TEST(ImageFile, CmykAndYcckJpegsDecodeToTheirColours) {
  auto image = test::solid_image(16, 16, 200, 40, 90);
  for (std::size_t i = 0; i < image.rgb.size(); i += 3)
    image.rgb[i] = 200, image.rgb[i + 1] = 40, image.rgb[i + 2] = 90;
  for (const bool ycck : {false, true}) {  // flat: YCCK subsamples its colour, which blurs edges
    const auto decoded = decode_image(test::cmyk_jpeg_of(image, ycck));
    ASSERT_EQ(decoded.width, 16) << ycck;
    ASSERT_EQ(decoded.rgb.size(), image.rgb.size()) << ycck;
    for (std::size_t i = 0; i < image.rgb.size(); ++i)
      ASSERT_NEAR(decoded.rgb[i], image.rgb[i], 3) << (ycck ? "YCCK" : "CMYK") << " byte " << i;
  }
}

// A progressive JPEG of more scans than any encoder writes is refused before it costs seconds
// of decoding, and not as a damaged file.
TEST(ImageFile, AJpegOfHundredsOfScansIsRefused) {
  const auto bytes = test::many_scan_jpeg_of(test::solid_image(64, 64, 90, 90, 90));
  try {
    decode_image(bytes);
    ADD_FAILURE() << "decoded";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "a JPEG image of more than 100 scans, refused: a progressive JPEG has about 10");
  }
  EXPECT_EQ(read_image_size(bytes).width, 64) << "its header is read as any other";
}

// A file to classify is refused from its first bytes when it is no image, whatever its
// length (a pipe of zeros was read to gigabytes first); an image is read whole.
TEST(ImageFile, AnImageFileIsRefusedFromItsFirstBytes) {
  const auto dir = test::fresh_temp_dir("image_file_read");
  test::write_bytes(dir / "zeros.png", std::string(3 << 20, '\0'));
  try {
    read_image_file((dir / "zeros.png").string());
    ADD_FAILURE() << "read";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), (dir / "zeros.png").string() + ": not a PNG or JPEG image");
  }
  const auto png = test::png_of(test::solid_image(5, 5, 1, 2, 3));
  test::write_bytes(dir / "small.png", png);
  EXPECT_EQ(read_image_file((dir / "small.png").string()), png);
  EXPECT_THROW(read_image_file(dir.string()), std::runtime_error);
}

TEST(ImageFile, DamagedOrForeignBytesAreOneLine) {
  expect_invalid("GIF89a....", "not a PNG or JPEG image");
  expect_invalid("", "not a PNG or JPEG image");
  const auto jpeg = test::jpeg_of(test::solid_image(32, 32, 10, 200, 10));
  expect_invalid(jpeg.substr(0, jpeg.size() / 2), "a damaged JPEG image");
  // A header claiming 60000 x 60000 pixels: refused before anything is decoded.
  const auto huge = test::claiming_size(jpeg, 60000, 60000);
  EXPECT_THROW(decode_image(huge), ImageTooLarge);
  expect_invalid(huge, "a JPEG image of 60000x60000 pixels, larger than 67108864");
  EXPECT_EQ(read_image_size(huge).width, 60000);  // the header alone is read
  // A caller's own limit, for PNG and JPEG alike.
  ImageDecoding small;
  small.max_pixels = 32 * 32 - 1;
  EXPECT_THROW(decode_image(jpeg, small), ImageTooLarge);
  EXPECT_THROW(decode_image(test::png_of(test::solid_image(32, 32, 1, 2, 3)), small), ImageTooLarge);
  small.max_pixels = 32 * 32;
  EXPECT_EQ(decode_image(jpeg, small).width, 32);
  // The header alone, as translate_server checks an upload before queueing it.
  EXPECT_NO_THROW(check_image_size(jpeg, 32 * 32));
  EXPECT_THROW(check_image_size(huge, kMaxImagePixels), ImageTooLarge);
  try {
    check_image_size(test::png_of(test::solid_image(40, 30, 1, 2, 3)), 1000);
    ADD_FAILURE() << "no error";
  } catch (const ImageTooLarge& e) {
    EXPECT_STREQ(e.what(), "a PNG image of 40x30 pixels, larger than 1000");
  }
  EXPECT_THROW(check_image_size("GIF89a", 1000), std::invalid_argument);
}

// A smooth picture (colour ramps), as photos mostly are between their edges.
RgbImage ramps(int width, int height) {
  RgbImage image;
  image.width = width;
  image.height = height;
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      image.rgb.push_back(static_cast<std::uint8_t>(255 * x / width));
      image.rgb.push_back(static_cast<std::uint8_t>(255 * y / height));
      image.rgb.push_back(static_cast<std::uint8_t>(128 + 100 * (x > width / 2) - 60 * (y > height / 2)));
    }
  }
  return image;
}

TEST(ImageFile, AJpegIsDecodedNoLargerThanAskedAndLooksTheSameResized) {
  const auto jpeg = test::jpeg_of(ramps(200, 120), 95);
  EXPECT_EQ(read_image_size(jpeg).width, 200);
  EXPECT_EQ(read_image_size(jpeg).height, 120);
  const auto full = decode_image(jpeg);
  EXPECT_EQ(full.width, 200);
  ImageDecoding near32;
  near32.min_side = 32;
  const auto reduced = decode_image(jpeg, near32);
  // The smallest k/8 keeping both sides >= 32: 3/8 (120 * 2/8 = 30 is too short).
  EXPECT_EQ(reduced.width, 75);
  EXPECT_EQ(reduced.height, 45);
  near32.min_side = 200;  // larger than the image: full size, never enlarged by libjpeg
  EXPECT_EQ(decode_image(jpeg, near32).height, 120);
  // What the model sees differs from the full decode by rounding, not by content.
  const auto a = planar_pixels(full, 3, 32), b = planar_pixels(reduced, 3, 32);
  ASSERT_EQ(a.size(), b.size());
  int worst = 0;
  double total = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    worst = std::max(worst, std::abs(a[i] - b[i]));
    total += std::abs(a[i] - b[i]);
  }
  EXPECT_LE(total / a.size(), 1.5);
  EXPECT_LE(worst, 24);  // at the ramps' sharp steps
}

TEST(ImageFile, ResizingKeepsFlatImagesFlatAndCornersInPlace) {
  const auto flat = test::solid_image(40, 40, 77, 77, 77);
  auto uniform = flat;
  for (auto& v : uniform.rgb) v = 77;
  for (const auto& [w, h] : {std::pair{7, 5}, std::pair{40, 40}, std::pair{97, 33}}) {
    const auto out = resize_image(uniform, w, h);
    ASSERT_EQ(out.width, w);
    ASSERT_EQ(out.height, h);
    for (const auto v : out.rgb) ASSERT_EQ(v, 77);
  }
  // Enlarging 2x2 to 4x4: each corner keeps its pixel (bilinear at pixel centres).
  RgbImage small;
  small.width = small.height = 2;
  small.rgb = {0, 0, 0, 255, 255, 255, 100, 100, 100, 200, 200, 200};
  const auto big = resize_image(small, 4, 4);
  EXPECT_EQ(big.rgb[0], 0);
  EXPECT_EQ(big.rgb[3 * 3], 255);
  EXPECT_EQ(big.rgb[12 * 3], 100);
  EXPECT_EQ(big.rgb[15 * 3], 200);
  // Shrinking averages: a fine checkerboard halves to grey, not to aliased black or white.
  RgbImage checker;
  checker.width = checker.height = 16;
  for (int y = 0; y < 16; ++y) {
    for (int x = 0; x < 16; ++x) {
      for (int c = 0; c < 3; ++c) checker.rgb.push_back((x + y) % 2 == 0 ? 0 : 255);
    }
  }
  for (const auto v : resize_image(checker, 4, 4).rgb) EXPECT_NEAR(v, 128, 16);
  EXPECT_EQ(resize_image(flat, 40, 40).rgb, flat.rgb);
}

}  // namespace
}  // namespace dls::util::image_file_test

#include "dls/util/png_image.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>

#include "dls/util/canvas.h"
#include "support/error_of.h"

namespace dls::util {
namespace {

TEST(PngImage, ReadsBackWhatTheCanvasWrote) {
  Canvas canvas(5, 3, Rgb{10, 20, 30});
  canvas.set_pixel(4, 2, Rgb{200, 100, 0});
  const auto png = canvas.encode_png();
  const auto size = read_png_size(png);
  EXPECT_EQ(size.width, 5);
  EXPECT_EQ(size.height, 3);
  const auto image = decode_png(png);
  ASSERT_EQ(image.rgb.size(), 5u * 3u * 3u);
  EXPECT_EQ(image.rgb[0], 10);
  EXPECT_EQ(image.rgb[1], 20);
  EXPECT_EQ(image.rgb[2], 30);
  const std::size_t last = (2 * 5 + 4) * 3;
  EXPECT_EQ(image.rgb[last], 200);
  EXPECT_EQ(image.rgb[last + 1], 100);
  EXPECT_EQ(image.rgb[last + 2], 0);
  EXPECT_FALSE(image.is_grey());
  EXPECT_TRUE(decode_png(Canvas(2, 2, Rgb{7, 7, 7}).encode_png()).is_grey());
}

TEST(PngImage, RefusesWhatIsNotAPng) {
  EXPECT_THROW(read_png_size("GIF89a and so on, long enough to hold a header"), std::invalid_argument);
  EXPECT_THROW(decode_png(""), std::invalid_argument);
  const auto png = Canvas(4, 4).encode_png();
  EXPECT_NO_THROW(read_png_size(png.substr(0, 24)));                   // the header alone gives the size
  EXPECT_THROW(decode_png(png.substr(0, 40)), std::invalid_argument);  // but not the pixels
}

std::string decode_error(const std::string& png) {
  return test::error_of<std::invalid_argument>([&] { decode_png(png); }, "decoded");
}

// `value` as PNG stores numbers: 4 bytes, most significant first.
std::string big_endian(std::uint32_t value) {
  std::string bytes;
  for (int i = 3; i >= 0; --i) bytes += static_cast<char>((value >> (8 * i)) & 0xFF);
  return bytes;
}

// A chunk as PNG writes it: length, type, data, CRC-32 of type and data.
std::string png_chunk(const std::string& type, const std::string& data) {
  const std::string body = type + data;
  const auto crc = crc32(0L, reinterpret_cast<const Bytef*>(body.data()), static_cast<uInt>(body.size()));
  return big_endian(static_cast<std::uint32_t>(data.size())) + body + big_endian(static_cast<std::uint32_t>(crc));
}

// An 8-bit RGBA PNG of `rgba` (width x height pixels, 4 bytes each), written by hand.
std::string rgba_png(int width, int height, const std::string& rgba) {
  const std::string header = big_endian(static_cast<std::uint32_t>(width)) +
                             big_endian(static_cast<std::uint32_t>(height)) +
                             std::string("\x08\x06\x00\x00\x00", 5);  // 8 bits, RGBA, deflate, no filter, no interlace
  std::string rows;
  for (int y = 0; y < height; ++y) rows += '\0' + rgba.substr(static_cast<std::size_t>(y) * width * 4, width * 4);
  uLongf packed_size = compressBound(static_cast<uLong>(rows.size()));
  std::string packed(packed_size, '\0');
  compress(reinterpret_cast<Bytef*>(packed.data()), &packed_size, reinterpret_cast<const Bytef*>(rows.data()),
           static_cast<uLong>(rows.size()));
  packed.resize(packed_size);
  return std::string("\x89PNG\r\n\x1a\n", 8) + png_chunk("IHDR", header) + png_chunk("IDAT", packed) +
         png_chunk("IEND", "");
}

// A PNG with transparency comes back as its pixels over black, half-transparent red as half
// red; an opaque pixel as it is.
TEST(PngImage, TransparencyIsOverBlack) {
  std::string rgba = std::string("\x00\xff\x00\xff", 4);                   // opaque green
  for (int p = 1; p < 6; ++p) rgba += std::string("\xff\x00\x00\x80", 4);  // red, alpha 128
  const auto image = decode_png(rgba_png(3, 2, rgba));
  ASSERT_EQ(image.rgb.size(), 3u * 2u * 3u);
  EXPECT_EQ(image.rgb[0], 0);
  EXPECT_EQ(image.rgb[1], 255);
  EXPECT_EQ(image.rgb[2], 0);
  for (std::size_t p = 1; p < 6; ++p) {
    EXPECT_NEAR(image.rgb[p * 3], 128, 1) << "pixel " << p;
    EXPECT_EQ(image.rgb[p * 3 + 1], 0) << "pixel " << p;
    EXPECT_EQ(image.rgb[p * 3 + 2], 0) << "pixel " << p;
  }
}

// cairo reads no side longer than 32767 pixels: such a PNG is refused from its header in
// words that say so (cairo's were "invalid value (typically too big) for the size of the input").
TEST(PngImage, SidesLongerThanCairoTakesAreNamed) {
  auto png = Canvas(4, 4).encode_png();
  for (const auto& [width, height] : {std::pair<int, int>{40000, 1}, {1, 40000}}) {
    png.replace(16, 8, big_endian(width) + big_endian(height));  // IHDR's width and height
    EXPECT_EQ(decode_error(png), "a PNG image of " + std::to_string(width) + "x" + std::to_string(height) +
                                     " pixels: the PNG reader takes sides of at most 32767 pixels (a JPEG may have "
                                     "longer ones)");
  }
}

// cairo calls every libpng error "out of memory": a damaged file is named as damaged.
TEST(PngImage, NamesADamagedOrTruncatedFile) {
  Canvas canvas(16, 16, Rgb{10, 20, 30});
  canvas.set_pixel(3, 3, Rgb{200, 0, 0});
  const auto png = canvas.encode_png();
  const auto idat = png.find("IDAT");
  ASSERT_NE(idat, std::string::npos);
  for (std::size_t at : {idat + 6, png.size() - 20}) {
    auto flipped = png;
    flipped[at] = static_cast<char>(flipped[at] ^ 0x10);
    const auto message = decode_error(flipped);
    EXPECT_NE(message.find("fails its checksum (the file is damaged)"), std::string::npos) << at << ": " << message;
  }
  EXPECT_NE(decode_error(png.substr(0, png.size() - 6)).find("(truncated)"), std::string::npos);
  EXPECT_NE(decode_error(png.substr(0, idat + 10)).find("runs past the end of the file (truncated)"),
            std::string::npos);
}

}  // namespace
}  // namespace dls::util

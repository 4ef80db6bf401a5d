#include "dls/util/png_image.h"

#include <gtest/gtest.h>

#include <stdexcept>

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

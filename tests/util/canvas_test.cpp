#include "dls/util/canvas.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "dls/util/file_io.h"
#include "support/outside_needs.h"
#include "util/png_reader.h"
#include "util/temp_files.h"

namespace dls::util {
namespace {

namespace fs = std::filesystem;

// Darkness of the text drawn in black, summed over the pixels (0 = white).
double ink(const Canvas& c) {
  double sum = 0;
  for (std::uint8_t v : c.pixels()) sum += 255 - v;
  return sum / 3 / 255;
}

Canvas draw(const std::string& text, int scale = 1) {
  Canvas c(std::max(1, text_width(text, scale) + 2), text_height(scale));
  c.draw_text(1, 0, text, kBlack, scale);
  return c;
}

TEST(Canvas, TextMetricsAreProportionalWithEqualDigits) {
  EXPECT_EQ(text_width(""), 0);
  EXPECT_EQ(text_height(1), 14);  // DejaVu Sans at 11 pixels: ascent 11, descent 3
  EXPECT_GT(text_height(2), text_height(1));
  EXPECT_GT(text_cap_height(1), 5);
  EXPECT_LT(text_cap_height(1), text_height(1));
  EXPECT_EQ(text_width("1"), text_width("8"));
  EXPECT_EQ(text_width("10"), 2 * text_width("0"));
  EXPECT_LT(text_width("ill"), text_width("mmm"));
  // Hinted advances round per glyph, so twice the size is twice as wide within a few pixels.
  EXPECT_NEAR(text_width("training loss", 2), 2 * text_width("training loss"), 8);
  EXPECT_EQ(text_width("canción"), text_width("cancion"));
}

TEST(Canvas, TextIsAntiAliasedAndInsideItsBox) {
  const Canvas c = draw("Año 3, ¿qué?");
  int black = 0, gray = 0;
  for (int y = 0; y < c.height(); ++y) {
    for (int x = 0; x < c.width(); ++x) {
      const Rgb p = c.pixel(x, y);
      EXPECT_TRUE(p.r == p.g && p.g == p.b) << "gray levels only, at " << x << "," << y;
      black += p.r < 40;
      gray += p.r >= 40 && p.r < 215;
    }
  }
  EXPECT_GT(black, 20);
  EXPECT_GT(gray, 20);  // edges are smoothed, not stair-stepped
  // Nothing of it lands outside the box text_width x text_height.
  Canvas big(text_width("Ágil, ñj") + 40, text_height() + 40);
  big.draw_text(20, 20, "Ágil, ñj", kBlack);
  for (int y = 0; y < big.height(); ++y) {
    for (int x = 0; x < big.width(); ++x) {
      const bool in_box = x >= 19 && x <= 20 + text_width("Ágil, ñj") && y >= 20 && y < 20 + text_height();
      if (!in_box) {
        ASSERT_EQ(big.pixel(x, y), kWhite) << x << "," << y;
      }
    }
  }
}

TEST(Canvas, AccentsAreDrawnAndDecomposedTextLooksComposed) {
  EXPECT_GT(ink(draw("é")), ink(draw("e")));
  EXPECT_GT(ink(draw("ñ")), ink(draw("n")));
  EXPECT_GT(ink(draw("Ü")), ink(draw("U")));
  // "e" + U+0301 is put in NFC first: the same pixels as the precomposed letter.
  EXPECT_EQ(draw("cafe\xcc\x81").pixels(), draw("café").pixels());
  EXPECT_EQ(text_width("cafe\xcc\x81"), text_width("café"));
  for (const char* text : {"¿", "¡", "«", "»", "—", "ç"}) EXPECT_GT(ink(draw(text)), 1.0) << text;
}

TEST(Canvas, VerticalTextIsHorizontalTextTurnedCounterClockwise) {
  const std::string text = "Año 3";
  const int w = text_width(text, 2), h = text_height(2);
  Canvas flat(w, h), turned(h, w);
  flat.draw_text(0, 0, text, kBlack, 2);
  turned.draw_text_vertical(0, 0, text, kBlack, 2);
  // The same ink (hinting differs a little between the two directions) ...
  EXPECT_NEAR(ink(turned), ink(flat), 0.08 * ink(flat));
  // ... in the same place once turned back: the first letter at the bottom, read upwards.
  double flat_left = 0, turned_bottom = 0;
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w / 3; ++x) {
      flat_left += 255 - flat.pixel(x, y).r;
      turned_bottom += 255 - turned.pixel(y, w - 1 - x).r;
    }
  }
  EXPECT_GT(flat_left, 0);
  EXPECT_NEAR(turned_bottom, flat_left, 0.15 * flat_left);
}

TEST(Canvas, EncodesPngThatDecodesToItsPixelsAndSavesAtomically) {
  Canvas c(37, 21, {10, 200, 30});
  c.draw_line({0, 0}, {36, 20}, {250, 0, 120}, 3.0);
  c.draw_text(2, 4, "año", kInk);
  const test::DecodedPng png = test::decode_png(c.encode_png());
  EXPECT_EQ(png.width, 37);
  EXPECT_EQ(png.height, 21);
  EXPECT_EQ(png.channels, 3);
  EXPECT_EQ(png.pixels, c.pixels());

  const fs::path dir = test::process_temp_path("canvas_png");
  test::remove_tree(dir);
  fs::create_directories(dir);
  const std::string path = (dir / "c.png").string();
  c.save_png(path);
  EXPECT_EQ(read_file(path), c.encode_png());
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 1);
  try {
    c.save_png((dir / "missing" / "x.png").string());
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("missing/x.png"), std::string::npos) << e.what();
  }
  test::remove_tree(dir);
}

// An independent PNG checker (CRCs, chunk order, zlib stream) accepts what save_png writes.
TEST(Canvas, PngcheckAcceptsThePng) {
  DLS_REQUIRE_OUTSIDE("/usr/bin/pngcheck");
  Canvas c(37, 21, {10, 200, 30});
  c.draw_text(2, 4, "año", kInk);
  const fs::path dir = test::process_temp_path("canvas_pngcheck");
  test::remove_tree(dir);
  fs::create_directories(dir);
  const std::string path = (dir / "c.png").string();
  c.save_png(path);
  EXPECT_EQ(std::system(test::outside_command({"/usr/bin/pngcheck", "-q", path}).c_str()), 0);
  test::remove_tree(dir);
}

TEST(Canvas, CopiesAreIndependent) {
  Canvas a(4, 4, kWhite);
  Canvas b = a;
  b.set_pixel(1, 1, kBlack);
  EXPECT_EQ(a.pixel(1, 1), kWhite);
  EXPECT_EQ(b.pixel(1, 1), kBlack);
  a = b;
  EXPECT_EQ(a.pixel(1, 1), kBlack);
  Canvas moved = std::move(b);
  EXPECT_EQ(moved.pixel(1, 1), kBlack);
}

TEST(Canvas, FitTextCutsWithDots) {
  EXPECT_EQ(fit_text("short", 100), "short");
  const std::string cut = fit_text("estación de tren", 40);
  EXPECT_LE(text_width(cut), 40);
  EXPECT_EQ(cut.substr(cut.size() - 2), "..");
  EXPECT_EQ(cut.rfind("esta", 0), 0u);
}

TEST(Canvas, LinesAreAntiAliasedAndClipped) {
  Canvas c(30, 12);
  c.draw_line({2, 5.5}, {20, 5.5}, kBlack, 1.0);
  for (int x = 3; x < 20; ++x) {
    EXPECT_EQ(c.pixel(x, 5), kBlack) << x;
    EXPECT_EQ(c.pixel(x, 3), kWhite) << x;
    EXPECT_EQ(c.pixel(x, 7), kWhite) << x;
  }
  Canvas d(30, 30);
  d.draw_line({0, 0}, {30, 11}, {0, 0, 255}, 2.0);  // a slope: partly covered pixels
  int partial = 0;
  for (int y = 0; y < 30; ++y) {
    for (int x = 0; x < 30; ++x) {
      const Rgb p = d.pixel(x, y);
      partial += p != kWhite && p != Rgb{0, 0, 255};
    }
  }
  EXPECT_GT(partial, 10);
  d.draw_line({-50, -50}, {100, 100}, kBlack, 2.0);  // mostly outside: no crash
  d.fill_rect(-5, -5, 8, 8, kBlack);
  EXPECT_EQ(d.pixel(2, 2), kBlack);
  EXPECT_THROW(d.pixel(30, 0), std::out_of_range);
}

TEST(Canvas, MixAndRectangles) {
  EXPECT_EQ(mix(kBlack, kWhite, 0.5), (Rgb{128, 128, 128}));
  EXPECT_EQ(mix({10, 20, 30}, {110, 20, 0}, 0.0), (Rgb{10, 20, 30}));
  Canvas c(10, 10);
  c.draw_rect(1, 1, 8, 8, kBlack, 2);
  EXPECT_EQ(c.pixel(1, 1), kBlack);
  EXPECT_EQ(c.pixel(2, 5), kBlack);
  EXPECT_EQ(c.pixel(3, 5), kWhite);
  EXPECT_EQ(c.pixel(8, 8), kBlack);
  EXPECT_EQ(c.pixel(9, 9), kWhite);
  Canvas small(2, 2, {1, 2, 3});
  c.blit(small, 8, 8);
  EXPECT_EQ(c.pixel(9, 9), (Rgb{1, 2, 3}));
}

}  // namespace
}  // namespace dls::util

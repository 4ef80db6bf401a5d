#include "dls/util/canvas.h"

#include <gtest/gtest.h>

namespace dls::util {
namespace {

bool inked(const Canvas& c, int x, int y) { return c.pixel(x, y) != kWhite; }

// Every inked pixel of the canvas as rows of '#' and '.', for readable failure messages.
std::string picture(const Canvas& c) {
  std::string out;
  for (int y = 0; y < c.height(); ++y) {
    for (int x = 0; x < c.width(); ++x) out += inked(c, x, y) ? '#' : '.';
    out += '\n';
  }
  return out;
}

TEST(Canvas, LetterIHasAVerticalStroke) {
  Canvas c(3, text_height());
  c.draw_text(0, 0, "I", kBlack);
  // ".###." trimmed to three columns: bars on the cap row and the baseline row, the stem
  // in the middle column between them.
  const int top = kTextCapTop, bottom = kTextCapTop + kTextCapHeight - 1;
  for (int y = 0; y < c.height(); ++y) {
    const bool in_cap = y >= top && y <= bottom;
    EXPECT_EQ(inked(c, 1, y), in_cap) << "row " << y << "\n" << picture(c);
    const bool bar = y == top || y == bottom;
    EXPECT_EQ(inked(c, 0, y), bar) << "row " << y << "\n" << picture(c);
    EXPECT_EQ(inked(c, 2, y), bar) << "row " << y << "\n" << picture(c);
  }
  EXPECT_EQ(c.pixel(1, top + 3), kBlack);
}

TEST(Canvas, TextWidthIsProportionalWithEqualDigits) {
  EXPECT_EQ(text_width(""), 0);
  EXPECT_EQ(text_width("I"), 3);
  EXPECT_EQ(text_width("II"), 3 + 1 + 3);
  EXPECT_EQ(text_width("0"), 5);
  EXPECT_EQ(text_width("1"), text_width("8"));
  EXPECT_EQ(text_width("10"), 11);
  EXPECT_EQ(text_width("10", 3), 33);
  EXPECT_EQ(text_width("canción"), text_width("cancion"));
  EXPECT_LT(text_width("ill"), text_width("mmm"));
  EXPECT_EQ(text_height(2), 26);
}

TEST(Canvas, AccentsAreMarksOverTheBaseLetter) {
  const auto draw = [](const char* text) {
    Canvas c(5, text_height());
    c.draw_text(0, 0, text, kBlack);
    return c;
  };
  const Canvas e = draw("e"), e_acute = draw("é"), cap_e = draw("E"), cap_e_acute = draw("É");
  int mark_pixels = 0;
  for (int y = 0; y < text_height(); ++y) {
    for (int x = 0; x < 5; ++x) {
      // Lowercase marks sit in rows 2-3 (above the x-height), capital ones in rows 0-1.
      if (y == 2 || y == 3) {
        EXPECT_FALSE(inked(e, x, y));
        mark_pixels += inked(e_acute, x, y);
      } else {
        EXPECT_EQ(inked(e, x, y), inked(e_acute, x, y)) << x << "," << y;
      }
      if (y <= 1) {
        EXPECT_FALSE(inked(cap_e, x, y));
        mark_pixels += inked(cap_e_acute, x, y);
      } else {
        EXPECT_EQ(inked(cap_e, x, y), inked(cap_e_acute, x, y)) << x << "," << y;
      }
    }
  }
  EXPECT_EQ(mark_pixels, 4);  // two pixels per acute accent
  // A decomposed "e" + U+0301 is drawn like the precomposed letter.
  EXPECT_EQ(draw("e\xcc\x81").pixels(), e_acute.pixels());
  // The cedilla hangs below the baseline, and ñ, ü, ¿, ¡ all have glyphs of their own.
  const Canvas c_cedilla = draw("ç");
  EXPECT_TRUE(inked(c_cedilla, 2, kTextCapTop + kTextCapHeight));
  for (const char* letter : {"ñ", "ü", "¿", "¡", "à", "Ñ", "Ü", "Ç", "ô"}) {
    EXPECT_NE(draw(letter).pixels(), draw("\xe2\x98\x83").pixels()) << letter;
  }
}

TEST(Canvas, UnknownCharactersAreSmallBoxes) {
  Canvas snowman(4, text_height()), control(4, text_height());
  snowman.draw_text(0, 0, "\xe2\x98\x83", kBlack);  // U+2603
  control.draw_text(0, 0, "\x01", kBlack);
  EXPECT_EQ(snowman.pixels(), control.pixels());
  const int top = kTextCapTop + 1, bottom = kTextCapTop + kTextCapHeight - 1;
  EXPECT_TRUE(inked(snowman, 0, top) && inked(snowman, 3, top));
  EXPECT_TRUE(inked(snowman, 0, bottom) && inked(snowman, 3, bottom));
  EXPECT_FALSE(inked(snowman, 1, top + 2));  // hollow
  EXPECT_EQ(text_width("\xe2\x98\x83"), 4);
}

TEST(Canvas, VerticalTextIsHorizontalTextTurnedCounterClockwise) {
  const std::string text = "Año 3";
  const int w = text_width(text, 2), h = text_height(2);
  Canvas flat(w, h), turned(h, w);
  flat.draw_text(0, 0, text, kBlack, 2);
  turned.draw_text_vertical(0, 0, text, kBlack, 2);
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) {
      ASSERT_EQ(flat.pixel(x, y), turned.pixel(y, w - 1 - x)) << x << "," << y;
    }
  }
}

TEST(Canvas, ScaledTextRepeatsEachFontPixel) {
  Canvas one(3, text_height(1)), three(9, text_height(3));
  one.draw_text(0, 0, "I", kBlack, 1);
  three.draw_text(0, 0, "I", kBlack, 3);
  for (int y = 0; y < three.height(); ++y) {
    for (int x = 0; x < three.width(); ++x) ASSERT_EQ(three.pixel(x, y), one.pixel(x / 3, y / 3));
  }
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

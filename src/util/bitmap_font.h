// The canvas's built-in bitmap font: 5-pixel-wide glyphs, caps 7 rows tall, drawn in a
// 13-row cell so that accents over capitals and descenders fit without touching the next
// line. Private to src/util (the canvas is its only user).
//
// Cell rows (scale 1):  0-1 accents over capitals   3-9 capitals (baseline after row 9)
//                       2-3 accents over lowercase  5-9 x-height   10-11 descenders
#pragma once

#include <array>
#include <cstdint>

#include "dls/util/canvas.h"

namespace dls::util::font {

inline constexpr int kCellHeight = 13;  // line height at scale 1
inline constexpr int kCapTop = kTextCapTop;  // first row of a capital letter
inline constexpr int kCapHeight = kTextCapHeight;

struct Glyph {
  std::array<std::uint8_t, kCellHeight> rows{};  // bit 4 = leftmost of the 5 columns
  int left = 0;     // first inked column; drawing starts there (proportional spacing)
  int advance = 0;  // pen movement in pixels, one blank column included
};

// The glyph of a code point: printable ASCII, Latin-1 letters with accents (composed from
// a base letter and a mark), ¿ ¡ « » ° and typographic quotes/dashes; a small box for
// anything else.
const Glyph& glyph(char32_t code_point);

// The precomposed letter for a base letter followed by a combining mark (e + U+0301 -> é),
// or 0 when the font has none.
char32_t compose(char32_t base, char32_t combining);

}  // namespace dls::util::font

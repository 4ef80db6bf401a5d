#include "bitmap_font.h"

#include <unordered_map>
#include <utility>

namespace dls::util::font {

namespace {

// Glyph art: up to 9 rows of 5 columns ('#' = ink), rows 0-6 from the cap top down to the
// baseline, rows 7-8 for descenders; rows left out are blank.
struct Art {
  char32_t code;
  const char* rows;
};

// clang-format off
const Art kArt[] = {
  {U' ', ""},
  {U'!', "..#.. ..#.. ..#.. ..#.. ..#.. ..... ..#.."},
  {U'"', ".#.#. .#.#. .#.#."},
  {U'#', ".#.#. .#.#. ##### .#.#. ##### .#.#. .#.#."},
  {U'$', "..#.. .#### #.#.. .###. ..#.# ####. ..#.."},
  {U'%', "##... ##..# ...#. ..#.. .#... #..## ...##"},
  {U'&', ".##.. #..#. #.#.. .#... #.#.# #..#. .##.#"},
  {U'\'', "..#.. ..#.. ..#.."},
  {U'(', "...#. ..#.. .#... .#... .#... ..#.. ...#."},
  {U')', ".#... ..#.. ...#. ...#. ...#. ..#.. .#..."},
  {U'*', "..... ..#.. #.#.# .###. #.#.# ..#.. ....."},
  {U'+', "..... ..#.. ..#.. ##### ..#.. ..#.. ....."},
  {U',', "..... ..... ..... ..... ..... .##.. .##.. ..#.. .#..."},
  {U'-', "..... ..... ..... ####. ..... ..... ....."},
  {U'.', "..... ..... ..... ..... ..... .##.. .##.."},
  {U'/', "..... ....# ...#. ..#.. .#... #.... ....."},
  {U'0', ".###. #...# #..## #.#.# ##..# #...# .###."},
  {U'1', "..#.. .##.. ..#.. ..#.. ..#.. ..#.. .###."},
  {U'2', ".###. #...# ....# ...#. ..#.. .#... #####"},
  {U'3', ".###. #...# ....# ..##. ....# #...# .###."},
  {U'4', "...#. ..##. .#.#. #..#. ##### ...#. ...#."},
  {U'5', "##### #.... ####. ....# ....# #...# .###."},
  {U'6', "..##. .#... #.... ####. #...# #...# .###."},
  {U'7', "##### ....# ...#. ..#.. .#... .#... .#..."},
  {U'8', ".###. #...# #...# .###. #...# #...# .###."},
  {U'9', ".###. #...# #...# .#### ....# ...#. .##.."},
  {U':', "..... .##.. .##.. ..... .##.. .##.. ....."},
  {U';', "..... .##.. .##.. ..... .##.. .##.. ..#.. .#..."},
  {U'<', "...#. ..#.. .#... #.... .#... ..#.. ...#."},
  {U'=', "..... ..... ##### ..... ##### ..... ....."},
  {U'>', ".#... ..#.. ...#. ....# ...#. ..#.. .#..."},
  {U'?', ".###. #...# ....# ...#. ..#.. ..... ..#.."},
  {U'@', ".###. #...# ....# .##.# #.#.# #.#.# .###."},
  {U'A', ".###. #...# #...# ##### #...# #...# #...#"},
  {U'B', "####. #...# #...# ####. #...# #...# ####."},
  {U'C', ".###. #...# #.... #.... #.... #...# .###."},
  {U'D', "###.. #..#. #...# #...# #...# #..#. ###.."},
  {U'E', "##### #.... #.... ####. #.... #.... #####"},
  {U'F', "##### #.... #.... ####. #.... #.... #...."},
  {U'G', ".###. #...# #.... #.### #...# #...# .####"},
  {U'H', "#...# #...# #...# ##### #...# #...# #...#"},
  {U'I', ".###. ..#.. ..#.. ..#.. ..#.. ..#.. .###."},
  {U'J', "..### ...#. ...#. ...#. ...#. #..#. .##.."},
  {U'K', "#...# #..#. #.#.. ##... #.#.. #..#. #...#"},
  {U'L', "#.... #.... #.... #.... #.... #.... #####"},
  {U'M', "#...# ##.## #.#.# #.#.# #...# #...# #...#"},
  {U'N', "#...# #...# ##..# #.#.# #..## #...# #...#"},
  {U'O', ".###. #...# #...# #...# #...# #...# .###."},
  {U'P', "####. #...# #...# ####. #.... #.... #...."},
  {U'Q', ".###. #...# #...# #...# #.#.# #..#. .##.#"},
  {U'R', "####. #...# #...# ####. #.#.. #..#. #...#"},
  {U'S', ".#### #.... #.... .###. ....# ....# ####."},
  {U'T', "##### ..#.. ..#.. ..#.. ..#.. ..#.. ..#.."},
  {U'U', "#...# #...# #...# #...# #...# #...# .###."},
  {U'V', "#...# #...# #...# #...# #...# .#.#. ..#.."},
  {U'W', "#...# #...# #...# #.#.# #.#.# #.#.# .#.#."},
  {U'X', "#...# #...# .#.#. ..#.. .#.#. #...# #...#"},
  {U'Y', "#...# #...# .#.#. ..#.. ..#.. ..#.. ..#.."},
  {U'Z', "##### ....# ...#. ..#.. .#... #.... #####"},
  {U'[', ".###. .#... .#... .#... .#... .#... .###."},
  {U'\\', "..... #.... .#... ..#.. ...#. ....# ....."},
  {U']', ".###. ...#. ...#. ...#. ...#. ...#. .###."},
  {U'^', "..#.. .#.#. #...#"},
  {U'_', "..... ..... ..... ..... ..... ..... ..... #####"},
  {U'`', ".#... ..#.."},
  {U'a', "..... ..... .###. ....# .#### #...# .####"},
  {U'b', "#.... #.... #.##. ##..# #...# #...# ####."},
  {U'c', "..... ..... .###. #.... #.... #...# .###."},
  {U'd', "....# ....# .##.# #..## #...# #...# .####"},
  {U'e', "..... ..... .###. #...# ##### #.... .###."},
  {U'f', "..##. .#..# .#... ###.. .#... .#... .#..."},
  {U'g', "..... ..... .#### #...# #...# #...# .#### ....# .###."},
  {U'h', "#.... #.... #.##. ##..# #...# #...# #...#"},
  {U'i', "..#.. ..... .##.. ..#.. ..#.. ..#.. .###."},
  {U'j', "...#. ..... ..##. ...#. ...#. ...#. ...#. #..#. .##.."},
  {U'k', "#.... #.... #..#. #.#.. ##... #.#.. #..#."},
  {U'l', ".##.. ..#.. ..#.. ..#.. ..#.. ..#.. .###."},
  {U'm', "..... ..... ##.#. #.#.# #.#.# #...# #...#"},
  {U'n', "..... ..... #.##. ##..# #...# #...# #...#"},
  {U'o', "..... ..... .###. #...# #...# #...# .###."},
  {U'p', "..... ..... ####. #...# #...# #...# ####. #.... #...."},
  {U'q', "..... ..... .#### #...# #...# #...# .#### ....# ....#"},
  {U'r', "..... ..... #.##. ##..# #.... #.... #...."},
  {U's', "..... ..... .#### #.... .###. ....# ####."},
  {U't', ".#... .#... ###.. .#... .#... .#..# ..##."},
  {U'u', "..... ..... #...# #...# #...# #..## .##.#"},
  {U'v', "..... ..... #...# #...# #...# .#.#. ..#.."},
  {U'w', "..... ..... #...# #...# #.#.# #.#.# .#.#."},
  {U'x', "..... ..... #...# .#.#. ..#.. .#.#. #...#"},
  {U'y', "..... ..... #...# #...# #...# #...# .#### ....# .###."},
  {U'z', "..... ..... ##### ...#. ..#.. .#... #####"},
  {U'{', "...#. ..#.. ..#.. .#... ..#.. ..#.. ...#."},
  {U'|', "..#.. ..#.. ..#.. ..#.. ..#.. ..#.. ..#.."},
  {U'}', ".#... ..#.. ..#.. ...#. ..#.. ..#.. .#..."},
  {U'~', "..... ..... .#... #.#.# ...#. ..... ....."},
  // Beyond ASCII.
  {0x00A0, ""},                                                            // no-break space
  {0x0131, "..... ..... .##.. ..#.. ..#.. ..#.. .###."},                   // dotless i
  {0x00BF, "..... ..... ..#.. ..... ..#.. .#... #.... #...# .###."},       // ¿
  {0x00A1, "..... ..... ..#.. ..... ..#.. ..#.. ..#.. ..#.. ..#.."},       // ¡
  {0x00AB, "..... ..... ..#.# .#.#. #.#.. .#.#. ..#.#"},                   // «
  {0x00BB, "..... ..... #.#.. .#.#. ..#.# .#.#. #.#.."},                   // »
  {0x00B0, ".##.. #..#. .##.."},                                           // °
  {0x00B7, "..... ..... ..... .##.. .##.."},                               // ·
  {0x00D7, "..... #...# .#.#. ..#.. .#.#. #...# ....."},                   // ×
  {0x00DF, ".##.. #..#. #..#. #.#.. #..#. #..#. #.##."},                   // ß
  {0x2013, "..... ..... ..... ##### ..... ..... ....."},                   // en dash
  {0x2014, "..... ..... ..... ##### ..... ..... ....."},                   // em dash
  {0x2018, "..#.. .#... .#..."},                                           // left quote
  {0x2019, "..#.. ..#.. .#..."},                                           // right quote
  {0x201C, ".#.#. #.#.. #.#.."},                                           // left dquote
  {0x201D, ".#.#. .#.#. #.#.."},                                           // right dquote
  {0x2026, "..... ..... ..... ..... ..... ..... #.#.#"},                   // ellipsis
  {0x2190, "..... ..#.. .#... ##### .#... ..#.. ....."},                   // left arrow
  {0x2192, "..... ..#.. ...#. ##### ...#. ..#.. ....."},                   // right arrow
  {0x20AC, "..### .#... ####. .#... ####. .#... ..###"},                   // euro
};

enum Mark { kAcute, kGrave, kCircumflex, kDiaeresis, kTilde, kCedilla, kRing };

// Two rows per mark, drawn above the letter (the cedilla below it).
const char* const kMarkArt[] = {
    "...#. ..#..",  // acute
    ".#... ..#..",  // grave
    "..#.. .#.#.",  // circumflex
    "..... .#.#.",  // diaeresis
    ".##.# #.##.",  // tilde
    "..#.. .##..",  // cedilla
    "..#.. .#.#.",  // ring (a small peak; a full ring needs three rows)
};

struct Composed {
  char32_t code;
  char32_t base;
  Mark mark;
};

const Composed kComposed[] = {
    {0xC0, 'A', kGrave}, {0xC1, 'A', kAcute}, {0xC2, 'A', kCircumflex}, {0xC3, 'A', kTilde},
    {0xC4, 'A', kDiaeresis}, {0xC5, 'A', kRing}, {0xC7, 'C', kCedilla}, {0xC8, 'E', kGrave},
    {0xC9, 'E', kAcute}, {0xCA, 'E', kCircumflex}, {0xCB, 'E', kDiaeresis},
    {0xCC, 'I', kGrave}, {0xCD, 'I', kAcute}, {0xCE, 'I', kCircumflex},
    {0xCF, 'I', kDiaeresis}, {0xD1, 'N', kTilde}, {0xD2, 'O', kGrave}, {0xD3, 'O', kAcute},
    {0xD4, 'O', kCircumflex}, {0xD5, 'O', kTilde}, {0xD6, 'O', kDiaeresis},
    {0xD9, 'U', kGrave}, {0xDA, 'U', kAcute}, {0xDB, 'U', kCircumflex},
    {0xDC, 'U', kDiaeresis}, {0xDD, 'Y', kAcute}, {0x178, 'Y', kDiaeresis},
    {0xE0, 'a', kGrave}, {0xE1, 'a', kAcute}, {0xE2, 'a', kCircumflex}, {0xE3, 'a', kTilde},
    {0xE4, 'a', kDiaeresis}, {0xE5, 'a', kRing}, {0xE7, 'c', kCedilla}, {0xE8, 'e', kGrave},
    {0xE9, 'e', kAcute}, {0xEA, 'e', kCircumflex}, {0xEB, 'e', kDiaeresis},
    {0xEC, 0x131, kGrave}, {0xED, 0x131, kAcute}, {0xEE, 0x131, kCircumflex},
    {0xEF, 0x131, kDiaeresis}, {0xF1, 'n', kTilde}, {0xF2, 'o', kGrave}, {0xF3, 'o', kAcute},
    {0xF4, 'o', kCircumflex}, {0xF5, 'o', kTilde}, {0xF6, 'o', kDiaeresis},
    {0xF9, 'u', kGrave}, {0xFA, 'u', kAcute}, {0xFB, 'u', kCircumflex},
    {0xFC, 'u', kDiaeresis}, {0xFD, 'y', kAcute}, {0xFF, 'y', kDiaeresis},
};
// clang-format on

// Parses space-separated rows of '.'/'#' into `rows` starting at cell row `first_row`.
void paint(const char* art, int first_row, Glyph* glyph) {
  int row = first_row, column = 0;
  for (const char* p = art; *p != '\0'; ++p) {
    if (*p == ' ') {
      ++row, column = 0;
    } else {
      if (*p == '#') glyph->rows[row] |= static_cast<std::uint8_t>(0x10 >> column);
      ++column;
    }
  }
}

// Sets left/advance from the inked columns; digits keep all five so numbers line up.
void measure(char32_t code, Glyph* glyph) {
  std::uint8_t used = 0;
  for (std::uint8_t row : glyph->rows) used |= row;
  if (used == 0) {
    glyph->left = 0, glyph->advance = 3;  // space
    return;
  }
  int left = 0, right = 4;
  if (code < U'0' || code > U'9') {
    while (!(used & (0x10 >> left))) ++left;
    while (!(used & (0x10 >> right))) --right;
  }
  glyph->left = left;
  glyph->advance = right - left + 2;
}

struct Font {
  std::unordered_map<char32_t, Glyph> glyphs;
  Glyph box;

  Font() {
    for (const Art& art : kArt) {
      Glyph g;
      paint(art.rows, kCapTop, &g);
      measure(art.code, &g);
      glyphs[art.code] = g;
    }
    for (const Composed& c : kComposed) {
      Glyph g = glyphs.at(c.base);
      const bool capital = c.base >= U'A' && c.base <= U'Z';
      const int mark_row = c.mark == kCedilla ? kCapTop + 7 : capital ? 0 : kCapTop - 1;
      paint(kMarkArt[c.mark], mark_row, &g);
      measure(c.code, &g);
      glyphs[c.code] = g;
    }
    paint("..... #### #..# #..# #..# #..# ####", kCapTop, &box);
    measure(0, &box);
  }
};

}  // namespace

char32_t compose(char32_t base, char32_t combining) {
  static const std::pair<char32_t, Mark> kCombining[] = {
      {0x300, kGrave}, {0x301, kAcute}, {0x302, kCircumflex}, {0x303, kTilde},
      {0x308, kDiaeresis}, {0x30A, kRing}, {0x327, kCedilla}};
  for (const auto& [code, mark] : kCombining) {
    if (code != combining) continue;
    for (const Composed& c : kComposed) {
      const char32_t plain = c.base == 0x131 ? U'i' : c.base;
      if (plain == base && c.mark == mark) return c.code;
    }
  }
  return 0;
}

const Glyph& glyph(char32_t code_point) {
  static const Font font;
  if (code_point == U'\t') code_point = U' ';
  const auto found = font.glyphs.find(code_point);
  return found != font.glyphs.end() ? found->second : font.box;
}

}  // namespace dls::util::font

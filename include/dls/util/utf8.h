// UTF-8 decoding and terminal display width, shared by the tables (column widths) and the
// canvas (glyph lookup). Invalid bytes never throw: they decode to U+FFFD so that text
// from any corpus can be shown.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace dls::util {

inline constexpr char32_t kReplacementChar = 0xFFFD;

// Code points of a UTF-8 string; each invalid or truncated sequence gives one U+FFFD.
std::vector<char32_t> decode_utf8(std::string_view text);

// UTF-8 encoding of one code point (U+FFFD for surrogates and values past U+10FFFF).
std::string encode_utf8(char32_t code_point);

// Columns a code point takes in a terminal: 0 for combining marks and zero-width
// characters, 2 for East Asian wide/fullwidth characters, 1 otherwise.
int code_point_width(char32_t code_point);

// Columns the whole string takes ("canción" -> 7).
int display_width(std::string_view text);

// Longest prefix of `text` (whole code points) that fits in `columns` columns.
std::string truncate_to_width(std::string_view text, int columns);

}  // namespace dls::util

#include "dls/util/utf8.h"

#include <iterator>

namespace dls::util {

namespace {

// Decodes the sequence starting at text[*pos] and advances *pos past it.
char32_t next_code_point(std::string_view text, std::size_t* pos) {
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
  const unsigned char lead = byte(*pos);
  if (lead < 0x80) {
    ++*pos;
    return lead;
  }
  int length = 0;
  char32_t value = 0;
  char32_t minimum = 0;  // smallest value allowed for this length (rejects overlong forms)
  if ((lead & 0xE0) == 0xC0) {
    length = 2, value = lead & 0x1F, minimum = 0x80;
  } else if ((lead & 0xF0) == 0xE0) {
    length = 3, value = lead & 0x0F, minimum = 0x800;
  } else if ((lead & 0xF8) == 0xF0) {
    length = 4, value = lead & 0x07, minimum = 0x10000;
  } else {
    ++*pos;  // stray continuation byte or invalid lead byte
    return kReplacementChar;
  }
  std::size_t i = *pos + 1;
  for (int k = 1; k < length; ++k, ++i) {
    if (i >= text.size() || (byte(i) & 0xC0) != 0x80) {
      *pos = i;  // truncated: resume at the byte that broke the sequence
      return kReplacementChar;
    }
    value = (value << 6) | (byte(i) & 0x3F);
  }
  *pos = i;
  if (value < minimum || value > 0x10FFFF || (value >= 0xD800 && value <= 0xDFFF)) {
    return kReplacementChar;
  }
  return value;
}

bool in_ranges(char32_t c, const char32_t (*ranges)[2], std::size_t count) {
  for (std::size_t i = 0; i < count; ++i) {
    if (c >= ranges[i][0] && c <= ranges[i][1]) return true;
  }
  return false;
}

}  // namespace

std::vector<char32_t> decode_utf8(std::string_view text) {
  std::vector<char32_t> out;
  out.reserve(text.size());
  std::size_t pos = 0;
  while (pos < text.size()) out.push_back(next_code_point(text, &pos));
  return out;
}

std::string encode_utf8(char32_t c) {
  if (c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) c = kReplacementChar;
  std::string out;
  if (c < 0x80) {
    out += static_cast<char>(c);
  } else if (c < 0x800) {
    out += static_cast<char>(0xC0 | (c >> 6));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else if (c < 0x10000) {
    out += static_cast<char>(0xE0 | (c >> 12));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (c >> 18));
    out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  }
  return out;
}

int code_point_width(char32_t c) {
  // Combining diacritics and zero-width characters (decomposed "é" = e + U+0301).
  static const char32_t kZero[][2] = {{0x0300, 0x036F}, {0x1AB0, 0x1AFF}, {0x1DC0, 0x1DFF},
                                      {0x200B, 0x200F}, {0x20D0, 0x20FF}, {0xFE00, 0xFE0F},
                                      {0xFE20, 0xFE2F}, {0xFEFF, 0xFEFF}};
  // East Asian wide and fullwidth blocks (the common ones; enough for column layout).
  static const char32_t kWide[][2] = {{0x1100, 0x115F}, {0x2E80, 0x303E}, {0x3041, 0x33FF},
                                      {0x3400, 0x4DBF}, {0x4E00, 0x9FFF}, {0xA000, 0xA4CF},
                                      {0xAC00, 0xD7A3}, {0xF900, 0xFAFF}, {0xFE30, 0xFE4F},
                                      {0xFF00, 0xFF60}, {0xFFE0, 0xFFE6}, {0x1F300, 0x1F64F},
                                      {0x1F900, 0x1F9FF}, {0x20000, 0x3FFFD}};
  if (c < 0x20 || c == 0x7F) return 0;
  if (c < 0x300) return 1;
  if (in_ranges(c, kZero, std::size(kZero))) return 0;
  if (in_ranges(c, kWide, std::size(kWide))) return 2;
  return 1;
}

int display_width(std::string_view text) {
  int width = 0;
  std::size_t pos = 0;
  while (pos < text.size()) width += code_point_width(next_code_point(text, &pos));
  return width;
}

std::string truncate_to_width(std::string_view text, int columns) {
  int width = 0;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t next = pos;
    const int w = code_point_width(next_code_point(text, &next));
    if (width + w > columns) break;
    width += w;
    pos = next;
  }
  return std::string(text.substr(0, pos));
}

}  // namespace dls::util

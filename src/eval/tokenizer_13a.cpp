#include "dls/eval/tokenizer_13a.h"

#include "dls/util/utf8.h"

namespace dls::eval {

namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// Rule 1's character class [\{-\~\[-\` -\&\(-\+\:-\@\/].
bool is_13a_symbol(char c) {
  return (c >= '{' && c <= '~') || (c >= '[' && c <= '`') || (c >= ' ' && c <= '&') || (c >= '(' && c <= '+') ||
         (c >= ':' && c <= '@') || c == '/';
}

void replace_all(std::string& text, std::string_view from, std::string_view to) {
  std::string out;
  out.reserve(text.size());
  std::size_t start = 0;
  for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, start)) {
    out.append(text, start, at - start).append(to);
    start = at + from.size();
  }
  text = out.append(text, start, std::string::npos);
}

// re.sub(r'(A)(B)', replacement, text) for single-byte classes A and B: a left-to-right
// pass of non-overlapping two-byte matches, each written as `before` A `middle` B `after`.
// Working on UTF-8 bytes gives what Python gives on code points: the classes that match
// non-ASCII (rules 2 and 3's [^0-9]) are only ever paired with an ASCII '.' or ',', and the
// spaces are inserted around that ASCII byte, never inside a multi-byte character.
template <typename First, typename Second>
std::string pad_pairs(const std::string& text, First first, Second second, const char* before, const char* middle,
                      const char* after) {
  std::string out;
  out.reserve(text.size() + text.size() / 2);
  std::size_t i = 0;
  while (i < text.size()) {
    if (i + 1 < text.size() && first(text[i]) && second(text[i + 1])) {
      out.append(before).push_back(text[i]);
      out.append(middle).push_back(text[i + 1]);
      out.append(after);
      i += 2;
    } else {
      out.push_back(text[i++]);
    }
  }
  return out;
}

}  // namespace

bool is_python_whitespace(char32_t c) {
  return (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x20) || c == 0x85 || c == 0xA0 || c == 0x1680 ||
         (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000;
}

std::vector<std::string> split_python_whitespace(std::string_view text) {
  std::vector<std::string> pieces;
  std::string piece;
  for (const char32_t c : util::decode_utf8(text)) {
    if (!is_python_whitespace(c)) {
      util::append_utf8(piece, c);
    } else if (!piece.empty()) {
      pieces.push_back(std::move(piece));
      piece.clear();
    }
  }
  if (!piece.empty()) pieces.push_back(std::move(piece));
  return pieces;
}

std::string_view rstrip_python_whitespace(std::string_view text) {
  while (!text.empty()) {
    // The last code point: its lead byte and up to three continuation bytes (10xxxxxx).
    std::size_t start = text.size() - 1;
    while (start > 0 && text.size() - start < 4 && (static_cast<unsigned char>(text[start]) & 0xC0) == 0x80) --start;
    const auto last = util::decode_utf8(text.substr(start));
    if (last.size() != 1 || !is_python_whitespace(last[0])) break;
    text.remove_suffix(text.size() - start);
  }
  return text;
}

std::string tokenize_13a(std::string_view line) {
  std::string text(line);
  replace_all(text, "<skipped>", "");
  replace_all(text, "-\n", "");
  replace_all(text, "\n", " ");
  replace_all(text, "&quot;", "\"");
  replace_all(text, "&amp;", "&");
  replace_all(text, "&lt;", "<");
  replace_all(text, "&gt;", ">");

  std::string padded = " ";
  for (const char c : text) {
    if (is_13a_symbol(c)) {
      padded.append(1, ' ').append(1, c).append(1, ' ');
    } else {
      padded.push_back(c);
    }
  }
  padded.push_back(' ');
  const auto not_digit = [](char c) { return !is_digit(c); };
  const auto period_or_comma = [](char c) { return c == '.' || c == ','; };
  const auto hyphen = [](char c) { return c == '-'; };
  padded = pad_pairs(padded, not_digit, period_or_comma, "", " ", " ");
  padded = pad_pairs(padded, period_or_comma, not_digit, " ", " ", "");
  padded = pad_pairs(padded, is_digit, hyphen, "", " ", " ");

  std::string joined;
  for (const auto& piece : split_python_whitespace(padded)) {
    if (!joined.empty()) joined.push_back(' ');
    joined += piece;
  }
  return joined;
}

}  // namespace dls::eval

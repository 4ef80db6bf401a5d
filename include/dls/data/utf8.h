// UTF-8 helpers of the text layer: validation, decoding, encoding and lowercasing of
// code points (no locale, no ICU: the same result on every machine).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace dls::data {

// Returned by decode_utf8 for a malformed sequence.
constexpr char32_t kInvalidCodePoint = 0xFFFFFFFF;

// Decodes the code point that starts at text[pos] and advances `pos` past it.
// A malformed sequence (stray continuation byte, overlong form, surrogate, value above
// U+10FFFF, sequence cut short) gives kInvalidCodePoint and advances `pos` by one byte.
// Precondition: pos < text.size().
char32_t decode_utf8(std::string_view text, std::size_t& pos);

// True when the whole text is well-formed UTF-8 (RFC 3629).
bool is_valid_utf8(std::string_view text);

// Appends the UTF-8 encoding of `code_point` (<= U+10FFFF). A surrogate is written as
// its three bytes, as Python's "surrogatepass" does; the result is then not valid UTF-8.
void append_utf8(std::string& out, char32_t code_point);

// Lowercase of one code point for ASCII, Latin-1 Supplement (À–Þ except ×),
// Latin Extended-A (Ā–ž, İ -> i, Ÿ -> ÿ), basic Greek and Cyrillic capitals; any other
// code point is returned unchanged.
char32_t to_lower(char32_t code_point);

}  // namespace dls::data

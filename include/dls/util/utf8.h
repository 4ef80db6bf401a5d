// UTF-8 and Unicode character properties: a thin layer over utf8proc (its Unicode tables,
// no locale: the same result on every machine). Used by the corpus normalisation
// (validation, NFC, lowercasing, categories), the pickle reader (encoding) and the tables
// and progress line (column widths). Invalid bytes never throw: they decode to U+FFFD so
// that text from any corpus can be shown.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace dls::util {

inline constexpr char32_t kReplacementChar = 0xFFFD;

// True when the whole text is well-formed UTF-8 (RFC 3629: no overlong forms, surrogates,
// values above U+10FFFF or sequences cut short).
bool is_valid_utf8(std::string_view text);

// Code points of a UTF-8 string; each malformed sequence (a byte that starts no
// well-formed sequence, with the continuation bytes right after it) gives one U+FFFD.
std::vector<char32_t> decode_utf8(std::string_view text);

// The code points of the text in Unicode Normalization Form C, so that a decomposed
// accent ("e" + U+0301) and the composed letter ("é") give the same code points.
// Malformed sequences give U+FFFD as in decode_utf8.
std::vector<char32_t> nfc_code_points(std::string_view text);

// Appends the UTF-8 encoding of `code_point` (<= U+10FFFF). A surrogate is written as
// its three bytes, as Python's "surrogatepass" does; the result is then not valid UTF-8.
void append_utf8(std::string& out, char32_t code_point);

// UTF-8 encoding of one code point (U+FFFD for surrogates and values past U+10FFFF).
std::string encode_utf8(char32_t code_point);

// Unicode's simple lowercase mapping (one code point to one; 'É' -> 'é', 'Ж' -> 'ж',
// 'Σ' -> 'σ'). Not locale-aware: 'I' -> 'i' also in Turkish text, 'İ' -> 'i', and 'ı'
// stays 'ı'. Code points without a lowercase form are returned unchanged.
char32_t to_lower(char32_t code_point);

// Unicode's simple uppercase mapping ('é' -> 'É'), not locale-aware; unchanged without one.
char32_t to_upper(char32_t code_point);

// Unicode's simple titlecase mapping, the form that starts a sentence: the uppercase one but
// for digraphs ('ǆ' -> 'ǅ', not 'Ǆ'); not locale-aware; unchanged without one.
char32_t to_title(char32_t code_point);

// Unicode general category, by its first letter (Lu/Ll/Lt/Lm/Lo -> kLetter, ...).
enum class CharCategory {
  kLetter,       // L*
  kMark,         // M*: combining accents
  kNumber,       // N*: digits, ² ½ Ⅻ
  kPunctuation,  // P*: . , ¿ ¡ « » — … “ ” ‘ ’ …
  kSymbol,       // S*: + $ € ° © ´ ` ^ emoji …
  kSeparator,    // Z*: spaces (incl. U+00A0), line and paragraph separators
  kControl,      // Cc: tab, newline, other C0/C1 controls
  kFormat,       // Cf: soft hyphen, zero-width (non-)joiners and spaces, BOM, bidi marks
  kOther,        // Co, Cs, Cn: private use, surrogates, unassigned
};
CharCategory char_category(char32_t code_point);

// Columns a code point takes in a terminal: 0 for combining marks, control and zero-width
// characters, 2 for East Asian wide/fullwidth characters and emoji, 1 otherwise.
int code_point_width(char32_t code_point);

// Columns the whole string takes ("canción" -> 7).
int display_width(std::string_view text);

// Longest prefix of `text` (whole code points) that fits in `columns` columns.
std::string truncate_to_width(std::string_view text, int columns);

}  // namespace dls::util

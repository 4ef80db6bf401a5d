#include "dls/util/utf8.h"

#include <utf8proc.h>

#include <stdexcept>

namespace dls::util {

namespace {

const utf8proc_uint8_t* bytes(std::string_view text) { return reinterpret_cast<const utf8proc_uint8_t*>(text.data()); }

// Length of the well-formed sequence at text[pos] (its code point in *code_point), or 0.
std::size_t sequence_length(std::string_view text, std::size_t pos, char32_t* code_point) {
  utf8proc_int32_t value = 0;
  const utf8proc_ssize_t n =
      utf8proc_iterate(bytes(text) + pos, static_cast<utf8proc_ssize_t>(text.size() - pos), &value);
  if (n <= 0) return 0;
  *code_point = static_cast<char32_t>(value);
  return static_cast<std::size_t>(n);
}

// Position after the malformed sequence at text[pos]: its first byte and the continuation
// bytes (10xxxxxx) right after it, so that "\xE2\x82" (cut short) is one U+FFFD.
std::size_t skip_malformed(std::string_view text, std::size_t pos) {
  ++pos;
  while (pos < text.size() && (static_cast<unsigned char>(text[pos]) & 0xC0) == 0x80) ++pos;
  return pos;
}

// Appends the NFC code points of well-formed UTF-8 `run`. `buffer` is scratch space.
void append_nfc(std::string_view run, std::vector<utf8proc_int32_t>& buffer, std::vector<char32_t>& out) {
  if (run.empty()) return;
  constexpr auto kOptions = static_cast<utf8proc_option_t>(UTF8PROC_STABLE | UTF8PROC_COMPOSE);
  const auto length = static_cast<utf8proc_ssize_t>(run.size());
  // Decomposition may grow the text (a Hangul syllable gives three jamo): ask again with
  // the size utf8proc reports.
  if (buffer.size() < run.size()) buffer.resize(run.size());
  utf8proc_ssize_t n =
      utf8proc_decompose(bytes(run), length, buffer.data(), static_cast<utf8proc_ssize_t>(buffer.size()), kOptions);
  if (n > static_cast<utf8proc_ssize_t>(buffer.size())) {
    buffer.resize(static_cast<std::size_t>(n));
    n = utf8proc_decompose(bytes(run), length, buffer.data(), n, kOptions);
  }
  if (n >= 0) n = utf8proc_normalize_utf32(buffer.data(), n, kOptions);
  if (n < 0) throw std::runtime_error(std::string("utf8proc: ") + utf8proc_errmsg(n));
  out.insert(out.end(), buffer.begin(), buffer.begin() + n);
}

}  // namespace

bool is_valid_utf8(std::string_view text) {
  std::size_t pos = 0;
  char32_t code_point = 0;
  while (pos < text.size()) {
    // Fast path over ASCII, which is most of the corpus.
    if (static_cast<unsigned char>(text[pos]) < 0x80) {
      ++pos;
      continue;
    }
    const std::size_t n = sequence_length(text, pos, &code_point);
    if (n == 0) return false;
    pos += n;
  }
  return true;
}

std::vector<char32_t> decode_utf8(std::string_view text) {
  std::vector<char32_t> out;
  out.reserve(text.size());
  std::size_t pos = 0;
  char32_t code_point = 0;
  while (pos < text.size()) {
    const std::size_t n = sequence_length(text, pos, &code_point);
    out.push_back(n > 0 ? code_point : kReplacementChar);
    pos = n > 0 ? pos + n : skip_malformed(text, pos);
  }
  return out;
}

std::vector<char32_t> nfc_code_points(std::string_view text) {
  std::vector<char32_t> out;
  out.reserve(text.size());
  std::vector<utf8proc_int32_t> buffer;
  std::size_t start = 0;
  char32_t code_point = 0;
  while (start < text.size()) {
    std::size_t end = start;  // the longest well-formed run from `start`
    while (end < text.size()) {
      const std::size_t n = sequence_length(text, end, &code_point);
      if (n == 0) break;
      end += n;
    }
    append_nfc(text.substr(start, end - start), buffer, out);
    if (end == text.size()) break;
    out.push_back(kReplacementChar);
    start = skip_malformed(text, end);
  }
  return out;
}

void append_utf8(std::string& out, char32_t code_point) {
  // utf8proc_encode_char writes surrogates as three bytes and nothing past U+10FFFF.
  utf8proc_uint8_t encoded[4];
  utf8proc_ssize_t n = utf8proc_encode_char(static_cast<utf8proc_int32_t>(code_point), encoded);
  if (n <= 0) n = utf8proc_encode_char(kReplacementChar, encoded);
  out.append(reinterpret_cast<const char*>(encoded), static_cast<std::size_t>(n));
}

std::string encode_utf8(char32_t code_point) {
  std::string out;
  const auto value = static_cast<utf8proc_int32_t>(code_point);
  append_utf8(out, code_point <= 0x10FFFF && utf8proc_codepoint_valid(value) ? code_point : kReplacementChar);
  return out;
}

char32_t to_lower(char32_t code_point) {
  if (code_point > 0x10FFFF) return code_point;
  return static_cast<char32_t>(utf8proc_tolower(static_cast<utf8proc_int32_t>(code_point)));
}

char32_t to_upper(char32_t code_point) {
  if (code_point > 0x10FFFF) return code_point;
  return static_cast<char32_t>(utf8proc_toupper(static_cast<utf8proc_int32_t>(code_point)));
}

char32_t to_title(char32_t code_point) {
  if (code_point > 0x10FFFF) return code_point;
  return static_cast<char32_t>(utf8proc_totitle(static_cast<utf8proc_int32_t>(code_point)));
}

CharCategory char_category(char32_t code_point) {
  if (code_point > 0x10FFFF) return CharCategory::kOther;
  // Unicode's two-letter name ("Lu", "Po", "Cf", ...): the first letter is the class.
  const char* name = utf8proc_category_string(static_cast<utf8proc_int32_t>(code_point));
  switch (name[0]) {
    case 'L':
      return CharCategory::kLetter;
    case 'M':
      return CharCategory::kMark;
    case 'N':
      return CharCategory::kNumber;
    case 'P':
      return CharCategory::kPunctuation;
    case 'S':
      return CharCategory::kSymbol;
    case 'Z':
      return CharCategory::kSeparator;
    default:
      return name[1] == 'c'   ? CharCategory::kControl
             : name[1] == 'f' ? CharCategory::kFormat
                              : CharCategory::kOther;  // Co, Cs, Cn
  }
}

int code_point_width(char32_t code_point) {
  if (code_point > 0x10FFFF) return 1;
  return utf8proc_charwidth(static_cast<utf8proc_int32_t>(code_point));
}

int display_width(std::string_view text) {
  int width = 0;
  for (const char32_t c : decode_utf8(text)) width += code_point_width(c);
  return width;
}

std::string truncate_to_width(std::string_view text, int columns) {
  int width = 0;
  std::size_t pos = 0;
  char32_t code_point = 0;
  while (pos < text.size()) {
    const std::size_t n = sequence_length(text, pos, &code_point);
    const std::size_t next = n > 0 ? pos + n : skip_malformed(text, pos);
    const int w = code_point_width(n > 0 ? code_point : kReplacementChar);
    if (width + w > columns) break;
    width += w;
    pos = next;
  }
  return std::string(text.substr(0, pos));
}

}  // namespace dls::util

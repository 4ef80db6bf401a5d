#include "dls/data/detokenize.h"

#include "dls/util/utf8.h"

namespace dls::data {

namespace {

// The last code point of `source` that is not a space or a closing quote/bracket: the
// sentence's closing mark when it is one of . ? ! … (else 0).
char32_t closing_mark(std::string_view source) {
  const auto points = util::decode_utf8(source);
  for (auto it = points.rbegin(); it != points.rend(); ++it) {
    const char32_t c = *it;
    if (c == U' ' || c == U'\t' || c == U'\r' || c == U'\n' || c == U'"' || c == U'\'' || c == U')' || c == U'\u00BB' ||
        c == U'\u201D' || c == U'\u2019') {
      continue;
    }
    return c == U'.' || c == U'?' || c == U'!' || c == U'\u2026' ? c : 0;
  }
  return 0;
}

}  // namespace

std::string detokenize(const std::vector<std::string>& words, std::string_view source, Language target) {
  if (words.empty()) return "";
  auto points = util::decode_utf8(join_words(words));
  points.front() = util::to_upper(points.front());
  const char32_t mark = closing_mark(source);
  std::string text;
  if (target == Language::kSpanish && mark == U'?') util::append_utf8(text, U'\u00BF');  // ¿
  if (target == Language::kSpanish && mark == U'!') util::append_utf8(text, U'\u00A1');  // ¡
  for (const char32_t c : points) util::append_utf8(text, c);
  if (mark != 0) util::append_utf8(text, mark);
  return text;
}

}  // namespace dls::data

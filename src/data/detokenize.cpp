#include "dls/data/detokenize.h"

#include <algorithm>

#include "dls/data/languages.h"
#include "dls/util/utf8.h"

namespace dls::data {

namespace {

enum class Ending { kNone, kStatement, kQuestion, kExclamation, kEllipsis };

bool is_any_of(char32_t c, std::u32string_view set) { return set.find(c) != std::u32string_view::npos; }

// The kind of the source sentence's last mark, looking through spaces and closing quotes and
// brackets.
Ending ending_of(std::string_view source, const std::string& language) {
  const auto points = util::decode_utf8(source);
  for (auto it = points.rbegin(); it != points.rend(); ++it) {
    const char32_t c = *it;
    if (is_any_of(c, U" \t\r\n\"')\u00BB\u201D\u2019\u300D\u300F\uFF09\u3011")) continue;
    // . 。 ｡ ． । ॥ ۔ ። ։
    if (is_any_of(c, U".\u3002\uFF61\uFF0E\u0964\u0965\u06D4\u1362\u0589")) return Ending::kStatement;
    if (is_any_of(c, U"?\uFF1F\u061F\u037E") || (c == U';' && language == "el")) return Ending::kQuestion;
    if (is_any_of(c, U"!\uFF01")) return Ending::kExclamation;
    if (is_any_of(c, U"\u2026\u22EF")) return Ending::kEllipsis;
    return Ending::kNone;
  }
  return Ending::kNone;
}

// The target's mark for `ending` ("" for none).
std::u32string closing_mark(Ending ending, const std::string& language) {
  const bool cjk = language == "zh" || language == "ja";
  switch (ending) {
    case Ending::kNone:
      return U"";
    case Ending::kStatement:
      if (cjk) return U"\u3002";
      if (language == "hi" || language == "mr" || language == "ne") return U"\u0964";
      return U".";
    case Ending::kQuestion:
      if (cjk) return U"\uFF1F";
      if (language == "ar" || language == "fa" || language == "ur") return U"\u061F";
      if (language == "el") return U";";
      return U"?";
    case Ending::kExclamation:
      return cjk ? U"\uFF01" : U"!";
    case Ending::kEllipsis:
      return U"\u2026";
  }
  return U"";
}

bool starts_with_vowel_or_h(const std::string& word) {
  const auto points = util::decode_utf8(word);
  if (points.empty()) return false;
  return is_any_of(points.front(), U"aeiouyhàâäáéèêëíìîïóòôöúùûüÿœæ");
}

// The elided words that normalisation parted from the next one ("l'homme" -> "l homme").
bool elides(const std::string& word, const std::string& language) {
  static const std::vector<std::string> french{"l",  "d",     "j",      "m",      "t",      "s",      "n",     "c",
                                               "qu", "jusqu", "lorsqu", "puisqu", "quoiqu", "presqu", "quelqu"};
  static const std::vector<std::string> italian{"l",    "dell",  "dall",  "nell", "sull", "all",
                                                "coll", "quell", "quest", "c",    "d"};
  static const std::vector<std::string> catalan{"l", "d", "s", "m", "t", "n"};
  const auto& list = language == "fr" ? french : language == "it" ? italian : catalan;
  return std::find(list.begin(), list.end(), word) != list.end();
}

std::string joined(const std::vector<std::string>& words, const std::string& language) {
  const bool elision = language == "fr" || language == "it" || language == "ca";
  std::string text;
  for (std::size_t i = 0; i < words.size(); ++i) {
    if (i > 0) {
      const bool elided = elision && ((elides(words[i - 1], language) && starts_with_vowel_or_h(words[i])) ||
                                      (language == "fr" && words[i - 1] == "aujourd" && words[i] == "hui"));
      text += elided ? "'" : " ";
    }
    text += words[i];
  }
  return text;
}

}  // namespace

std::string detokenize(const std::vector<std::string>& words, std::string_view source,
                       const std::string& source_language, const std::string& target_language) {
  if (words.empty()) return "";
  const auto target = base_language(target_language);
  auto points = util::decode_utf8(joined(words, target));
  char32_t& first = points.front();
  const bool georgian = first >= 0x10D0 && first <= 0x10FF;  // Mkhedruli: no sentence capitals
  if ((target == "tr" || target == "az") && first == U'i') {
    first = U'\u0130';  // İ: the dotted i's capital
  } else if (!georgian) {
    first = util::to_title(first);
  }
  const auto ending = ending_of(source, base_language(source_language));
  std::string text;
  if (target == "es" && ending == Ending::kQuestion) util::append_utf8(text, U'\u00BF');     // ¿
  if (target == "es" && ending == Ending::kExclamation) util::append_utf8(text, U'\u00A1');  // ¡
  for (const char32_t c : points) util::append_utf8(text, c);
  for (const char32_t c : closing_mark(ending, target)) util::append_utf8(text, c);
  return text;
}

}  // namespace dls::data

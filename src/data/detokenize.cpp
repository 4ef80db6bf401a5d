#include "dls/data/detokenize.h"

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "dls/data/languages.h"
#include "dls/data/normalize.h"
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

// Whether a chunk whose one word is `word` and which ends in a period is an abbreviation written
// before a name, whose period ends no sentence: a title ("Mr. Smith", "Sra. López", "Dott.
// Rossi") or an initial ("J. Rowling": one capital letter, `first`).
bool comes_before_a_name(const std::string& word, char32_t first) {
  static const std::vector<std::string> titles{"mr",  "mrs", "ms",  "dr",   "prof", "sr",   "sra", "srta",
                                               "dra", "dña", "mme", "mlle", "sig",  "dott", "dhr", "mevr"};
  if (std::find(titles.begin(), titles.end(), word) != titles.end()) return true;
  return util::decode_utf8(word).size() == 1 && util::to_lower(first) != first;
}

// The words the source writes with capitals inside a sentence -- names, places, acronyms --
// by their normalised form: {"tom": "Tom", "nasa": "NASA"} for "Yes, Tom works for NASA."
// Left out: a sentence's first word (its capital is the sentence's), single letters (English
// "I"; Italian writes "i"), a word whose normalised form differs by more than case ("3,000"),
// and every word of a source in German or Luxembourgish, which capitalise every noun, and of
// a script without spaces.
std::map<std::string, std::string> capitalised_words(std::string_view source, const std::string& language) {
  std::map<std::string, std::string> names;
  if (language == "de" || language == "lb" || written_without_spaces(language)) return names;
  const auto rules = language_rules(language);
  const auto vanishes = [&](char32_t c) { return normalize_words(util::encode_utf8(c), rules).empty(); };
  const auto is_space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
  bool sentence_start = true;
  for (std::size_t start = 0; start < source.size();) {
    while (start < source.size() && is_space(source[start])) ++start;
    std::size_t end = start;
    while (end < source.size() && !is_space(source[end])) ++end;
    const auto chunk = source.substr(start, end - start);
    start = end;
    auto points = util::nfc_code_points(chunk);
    const auto words = normalize_words(chunk, rules);
    // A sentence starts at the first words, and after a chunk that ends one ("came." "Tom"),
    // looking through closing quotes and brackets as ending_of does.
    const auto last = std::find_if(points.rbegin(), points.rend(),
                                   [](char32_t c) { return !is_any_of(c, U"\"')\u00BB\u201D\u2019"); });
    const bool opens = sentence_start;
    const bool ends = last != points.rend() && is_any_of(*last, U".?!\u2026") &&
                      !(*last == U'.' && words.size() == 1 && comes_before_a_name(words.front(), points.front()));
    sentence_start = ends || (opens && words.empty());
    if (opens || words.size() != 1) continue;
    // Less the code points at its ends that normalise to nothing ("\"", "?", ".").
    while (!points.empty() && vanishes(points.front())) points.erase(points.begin());
    while (!points.empty() && vanishes(points.back())) points.pop_back();
    const auto word = util::decode_utf8(words.front());
    if (points.size() < 2 || points.size() != word.size()) continue;
    bool same_letters = true, capital = false;
    for (std::size_t i = 0; i < points.size() && same_letters; ++i) {
      same_letters = util::to_lower(points[i]) == word[i];
      capital = capital || points[i] != word[i];
    }
    std::string spelt;
    for (const char32_t c : points) util::append_utf8(spelt, c);
    if (same_letters && capital) names.emplace(words.front(), spelt);
  }
  return names;
}

// `words` joined, each spelt as `spelling` has it (else as it is); elisions are decided on the
// words themselves.
std::string joined(const std::vector<std::string>& words, const std::map<std::string, std::string>& spelling,
                   const std::string& language) {
  const bool elision = language == "fr" || language == "it" || language == "ca";
  std::string text;
  for (std::size_t i = 0; i < words.size(); ++i) {
    if (i > 0) {
      const bool elided = elision && ((elides(words[i - 1], language) && starts_with_vowel_or_h(words[i])) ||
                                      (language == "fr" && words[i - 1] == "aujourd" && words[i] == "hui"));
      text += elided ? "'" : " ";
    }
    const auto spelt = spelling.find(words[i]);
    text += spelt != spelling.end() ? spelt->second : words[i];
  }
  return text;
}

}  // namespace

std::string detokenize(const std::vector<std::string>& words, std::string_view source,
                       const std::string& source_language, const std::string& target_language) {
  if (words.empty()) return "";
  const auto target = base_language(target_language);
  auto points = util::decode_utf8(joined(words, capitalised_words(source, base_language(source_language)), target));
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

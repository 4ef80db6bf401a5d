#include "dls/data/normalize.h"

#include <array>
#include <utility>

#include "dls/util/utf8.h"

namespace dls::data {

namespace {

enum class CharClass { kKeep, kSeparator, kApostrophe, kDrop };

CharClass classify(char32_t c) {
  if (c == '\'' || c == '`' || c == 0xB4 || c == 0x2018 || c == 0x2019 || c == 0x2BC) {
    return CharClass::kApostrophe;
  }
  switch (util::char_category(c)) {
    case util::CharCategory::kFormat:
      return CharClass::kDrop;
    case util::CharCategory::kPunctuation:
    case util::CharCategory::kSymbol:
    case util::CharCategory::kSeparator:
    case util::CharCategory::kControl:
      return CharClass::kSeparator;
    default:
      return CharClass::kKeep;  // letters, marks, numbers, unassigned, private use
  }
}

bool is_ascii_digit(char32_t c) { return c >= '0' && c <= '9'; }

bool ends_with(const std::string& word, std::string_view suffix) {
  return word.size() > suffix.size() &&  // strictly longer: "'s" alone is no contraction
         word.compare(word.size() - suffix.size(), suffix.size(), suffix) == 0;
}

struct Expansion {
  std::string_view contraction;
  std::array<const char*, 2> words;  // second may be nullptr
};

constexpr std::array<Expansion, 6> kWholeWords{{
    {"won't", {"will", "not"}},
    {"can't", {"cannot", nullptr}},
    {"shan't", {"shall", "not"}},
    {"ain't", {"is", "not"}},
    {"let's", {"let", "us"}},
    {"y'all", {"you", "all"}},
}};

constexpr std::array<std::pair<std::string_view, const char*>, 6> kSuffixes{{
    {"n't", "not"},
    {"'re", "are"},
    {"'ve", "have"},
    {"'ll", "will"},
    {"'d", "would"},
    {"'m", "am"},
}};

// Words whose 's is read as "is" (elsewhere 's is a possessive).
constexpr std::array<std::string_view, 13> kIsBefore{"it",    "he",  "she", "that", "there", "here", "what",
                                                     "where", "who", "how", "when", "why",   "this"};

void push_without_apostrophes(std::string word, std::vector<std::string>& out) {
  std::string clean;
  clean.reserve(word.size());
  for (const char c : word) {
    if (c != '\'') clean += c;
  }
  if (!clean.empty()) out.push_back(std::move(clean));
}

void expand_contractions(std::string word, std::vector<std::string>& out) {
  std::vector<const char*> tail;  // expansions of stripped suffixes, last one first
  while (true) {
    for (const Expansion& whole : kWholeWords) {
      if (word == whole.contraction) {
        for (const char* w : whole.words) {
          if (w != nullptr) out.emplace_back(w);
        }
        for (auto it = tail.rbegin(); it != tail.rend(); ++it) out.emplace_back(*it);
        return;
      }
    }
    bool stripped = false;
    for (const auto& [suffix, expansion] : kSuffixes) {
      if (ends_with(word, suffix)) {
        word.resize(word.size() - suffix.size());
        tail.push_back(expansion);
        stripped = true;
        break;
      }
    }
    if (!stripped && ends_with(word, "'s")) {
      const std::string_view stem(word.data(), word.size() - 2);
      for (const std::string_view is_word : kIsBefore) {
        if (stem == is_word) {
          word.resize(stem.size());
          tail.push_back("is");
          stripped = true;
          break;
        }
      }
    }
    if (!stripped) break;
  }
  push_without_apostrophes(std::move(word), out);
  for (auto it = tail.rbegin(); it != tail.rend(); ++it) out.emplace_back(*it);
}

}  // namespace

std::vector<std::string> normalize_words(std::string_view text, Language language) {
  std::vector<std::string> words;
  normalize_words(text, language, words);
  return words;
}

void normalize_words(std::string_view text, Language language, std::vector<std::string>& words) {
  constexpr char32_t kCapitalSigma = 0x3A3;
  std::string word;
  bool has_apostrophe = false;
  // Byte offset in `word` of a σ that came from a capital Σ after a letter: if it ends
  // the word it becomes the final form ς (Unicode's Final_Sigma rule, which needs the
  // context that a one-to-one lowercase mapping does not see).
  std::size_t final_sigma = std::string::npos;
  const auto finish_word = [&] {
    if (word.empty()) return;
    if (final_sigma != std::string::npos && final_sigma + 2 == word.size()) {
      word[final_sigma + 1] = '\x82';  // σ is CF 83, ς is CF 82
    }
    if (!has_apostrophe) {
      words.push_back(std::move(word));
    } else if (language == Language::kEnglish) {
      expand_contractions(std::move(word), words);
    } else {
      push_without_apostrophes(std::move(word), words);
    }
    word.clear();
    has_apostrophe = false;
    final_sigma = std::string::npos;
  };
  const std::vector<char32_t> text32 = util::nfc_code_points(text);
  for (std::size_t i = 0; i < text32.size(); ++i) {
    const char32_t c = text32[i];
    if ((c == '.' || c == ',') && i > 0 && is_ascii_digit(text32[i - 1]) && i + 1 < text32.size() &&
        is_ascii_digit(text32[i + 1])) {
      std::size_t digits = 0, before = 0;
      while (i + 1 + digits < text32.size() && is_ascii_digit(text32[i + 1 + digits])) ++digits;
      while (before < i && is_ascii_digit(text32[i - 1 - before])) ++before;
      const bool leading_zero = before == 1 && text32[i - 1] == '0';  // "0.125": no group follows a lone 0
      if (digits == 3 && !leading_zero) continue;  // a digit-group separator: "3,000" -> "3000", "3.000" -> "3000"
      util::append_utf8(word, c);                  // a decimal one, part of the number: "3.5", "1,5" (not "35", "15")
      continue;
    }
    const char32_t before = i > 0 ? text32[i - 1] : 0, after = i + 1 < text32.size() ? text32[i + 1] : 0;
    if (c == 0xB7 && (before == 'l' || before == 'L') && (after == 'l' || after == 'L')) {
      util::append_utf8(word, c);  // Catalan's l·l
      continue;
    }
    const auto hebrew = [](char32_t p) { return p >= 0x05D0 && p <= 0x05EA; };
    if ((c == 0x05F4 || c == '"' || c == 0x05F3 || c == '\'') && hebrew(before) && hebrew(after)) {
      util::append_utf8(word, c == '"' || c == 0x05F4 ? char32_t{0x05F4} : char32_t{0x05F3});  // ״ ׳
      continue;
    }
    switch (classify(c)) {
      case CharClass::kKeep:
        final_sigma = c == kCapitalSigma && !word.empty() ? word.size() : std::string::npos;
        util::append_utf8(word, language == Language::kTurkish && c == 'I' ? char32_t{0x0131} : util::to_lower(c));
        break;
      case CharClass::kApostrophe:
        if (language == Language::kElision) {  // "l'homme" -> "l homme"
          finish_word();
          break;
        }
        word += '\'';
        has_apostrophe = true;
        break;
      case CharClass::kSeparator:
        finish_word();
        break;
      case CharClass::kDrop:
        break;
    }
  }
  finish_word();
}

std::string join_words(const std::vector<std::string>& words) {
  std::string out;
  for (std::size_t i = 0; i < words.size(); ++i) {
    if (i > 0) out += ' ';
    out += words[i];
  }
  return out;
}

}  // namespace dls::data

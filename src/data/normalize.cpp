#include "dls/data/normalize.h"

#include <array>
#include <utility>

#include "dls/data/utf8.h"

namespace dls::data {

namespace {

enum class CharClass { kKeep, kSeparator, kApostrophe, kDrop };

bool is_space(char32_t c) {
  return c == ' ' || (c >= 0x09 && c <= 0x0D) || c == 0x85 || c == 0xA0 || c == 0x1680 ||
         (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F ||
         c == 0x3000;
}

bool is_punctuation_or_symbol(char32_t c) {
  if (c < 0x80) {
    return (c >= 0x21 && c <= 0x2F) || (c >= 0x3A && c <= 0x40) || (c >= 0x5B && c <= 0x60) ||
           (c >= 0x7B && c <= 0x7E);
  }
  if (c >= 0xA1 && c <= 0xBF) {
    // Latin-1 punctuation and symbols, but not ª º (letters), ² ³ ¹ ¼ ½ ¾ (numbers), µ.
    return c != 0xAA && c != 0xBA && c != 0xB2 && c != 0xB3 && c != 0xB9 && c != 0xB5 &&
           !(c >= 0xBC && c <= 0xBE);
  }
  if (c == 0xD7 || c == 0xF7) return true;  // × ÷
  if ((c >= 0x2010 && c <= 0x2027) || (c >= 0x2030 && c <= 0x205E))
    return true;                      // General Punctuation
  return c >= 0x20A0 && c <= 0x20CF;  // currency signs
}

CharClass classify(char32_t c) {
  if (c == '\'' || c == '`' || c == 0xB4 || c == 0x2018 || c == 0x2019 || c == 0x2BC) {
    return CharClass::kApostrophe;
  }
  if (c == 0xAD || (c >= 0x200B && c <= 0x200D) || c == 0x2060 || c == 0xFEFF)
    return CharClass::kDrop;
  if (c == kInvalidCodePoint || is_space(c) || is_punctuation_or_symbol(c))
    return CharClass::kSeparator;
  return CharClass::kKeep;
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
constexpr std::array<std::string_view, 13> kIsBefore{"it",   "he",   "she",   "that", "there",
                                                     "here", "what", "where", "who",  "how",
                                                     "when", "why",  "this"};

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
  std::string word;
  bool has_apostrophe = false;
  const auto finish_word = [&] {
    if (word.empty()) return;
    if (!has_apostrophe) {
      words.push_back(std::move(word));
    } else if (language == Language::kEnglish) {
      expand_contractions(std::move(word), words);
    } else {
      push_without_apostrophes(std::move(word), words);
    }
    word.clear();
    has_apostrophe = false;
  };
  char32_t previous = 0;
  std::size_t pos = 0;
  while (pos < text.size()) {
    const char32_t c = decode_utf8(text, pos);
    const bool digit_separator = (c == '.' || c == ',') && is_ascii_digit(previous) &&
                                 pos < text.size() &&
                                 is_ascii_digit(static_cast<unsigned char>(text[pos]));
    previous = c;
    if (digit_separator) continue;
    switch (classify(c)) {
      case CharClass::kKeep:
        append_utf8(word, to_lower(c));
        break;
      case CharClass::kApostrophe:
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

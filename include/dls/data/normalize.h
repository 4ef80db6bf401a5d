// Sentence normalisation in DLStudio's manner: lowercase, contractions expanded,
// punctuation stripped, accents and digits kept, split into words.
//
// The rules, in order (on UTF-8 code points; see utf8.h for what lowercasing covers):
//  1. Apostrophes: ' ’ ‘ ʼ ` ´ all count as the ASCII apostrophe.
//  2. Separators (end the current word, i.e. become a space): whitespace (incl. U+00A0
//     and the other Unicode spaces), all ASCII punctuation except the apostrophe
//     (so "well-known" -> "well known", "7:30" -> "7 30"), ¿ ¡ « » “ ” „ ‚ … – — and the
//     rest of the General Punctuation block, the symbols of Latin-1 (° · ¨ § © ± × ÷ …),
//     and currency signs (€ £ ¥ …).
//     Exception: a '.' or ',' between two ASCII digits is removed, so that the digit
//     groups of a number stay one word: "3,000" -> "3000", "3.000" -> "3000" (the corpus
//     has many of these and almost no decimal fractions).
//  3. Removed without a trace: zero-width characters (U+200B-U+200D, U+2060, BOM U+FEFF)
//     and the soft hyphen U+00AD.
//  4. Everything else is lowercased and kept: letters of any script, accented letters,
//     digits, ordinal indicators º ª.
//  5. English only, per word: contractions are expanded. Whole words: won't -> will not,
//     can't -> cannot (one word), shan't -> shall not, ain't -> is not, let's -> let us,
//     y'all -> you all. Suffixes, repeatedly from the right: n't -> not, 're -> are,
//     've -> have, 'll -> will, 'd -> would, 'm -> am, and 's -> is after it, he, she,
//     that, this, there, here, what, where, who, how, when, why. So "wouldn't've" ->
//     "would not have". 'd is always "would" and 's always "is" (never "had"/"has": the
//     text alone cannot tell). Any other 's is a possessive (or ambiguous) and keeps no
//     apostrophe: "tom's" -> "toms", "o'clock" -> "oclock".
//  6. Remaining apostrophes are removed without a trace (both languages); a word left
//     empty disappears.
// Invalid UTF-8 bytes act as separators (the corpus reader rejects such lines earlier).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace dls::data {

enum class Language { kEnglish, kSpanish };

// The normalised words of one sentence (no SOS/EOS).
std::vector<std::string> normalize_words(std::string_view text, Language language);

// The same, appended to `words` (lets a caller reuse one vector for many sentences).
void normalize_words(std::string_view text, Language language, std::vector<std::string>& words);

inline std::vector<std::string> normalize_english(std::string_view text) {
  return normalize_words(text, Language::kEnglish);
}
inline std::vector<std::string> normalize_spanish(std::string_view text) {
  return normalize_words(text, Language::kSpanish);
}

// The words joined by single spaces: "i will kill him".
std::string join_words(const std::vector<std::string>& words);

}  // namespace dls::data

// Sentence normalisation in DLStudio's manner: lowercase, contractions expanded,
// punctuation stripped, accents and digits kept, split into words.
//
// The rules, in order, on the code points of the sentence in Unicode Normalization Form C
// (so "e" + U+0301 and "é" are the same letter); Unicode's tables come from utf8proc
// (util/utf8.h):
//  1. Apostrophes: ' ’ ‘ ʼ ` ´ all count as the ASCII apostrophe.
//  2. Separators (end the current word, i.e. become a space): every character of the
//     Unicode categories punctuation (P*: . , ; - ¿ ¡ « » “ ” … – — 、 。 …), symbol
//     (S*: + = $ € ° © ¨ × → emoji …), space separator (Z*: incl. U+00A0) and control
//     (Cc: tab, newline …), except the apostrophes above. So "well-known" -> "well known",
//     "7:30" -> "7 30".
//     Exceptions, for a '.' or ',' between two ASCII digits: before a group of exactly three
//     digits it is removed, so that the digit groups of a number stay one word ("3,000" ->
//     "3000", "3.000" -> "3000"); before any other number of digits it is a decimal point
//     and stays in the word, so that the number keeps its value ("3.5", "1,5", "9,4", and
//     "0.125" after a lone 0: they became "35", "15", "94").
//  3. Removed without a trace: format characters (Cf: soft hyphen U+00AD, zero-width
//     space/joiners U+200B-U+200D, U+2060, BOM U+FEFF, bidi marks).
//  4. Everything else is kept and lowercased with Unicode's simple lowercase mapping:
//     letters of any script, combining marks, digits and other numbers (² ½), ordinal
//     indicators º ª. 'İ' -> 'i', 'ı' stays 'ı'; 'I' -> 'i', but in Turkish and
//     Azerbaijani (kTurkish) 'I' -> 'ı' ("KIZ" -> "kız", not the other word "kiz"). A capital Σ
//     that ends a word after a letter becomes the final form ς ("ΟΔΟΣ" -> "οδος"), elsewhere σ.
//     A middle dot between two l's is Catalan's ela geminada and stays in the word
//     ("col·legi"); a gershayim or geresh (״ ׳, or " ' typed for them) between Hebrew letters
//     stays as ״ or ׳ ("צה״ל").
//  5. English only, per word: contractions are expanded. Whole words: won't -> will not,
//     can't -> cannot (one word), shan't -> shall not, ain't -> is not, let's -> let us,
//     y'all -> you all. Suffixes, repeatedly from the right: n't -> not, 're -> are,
//     've -> have, 'll -> will, 'd -> would, 'm -> am, and 's -> is after it, he, she,
//     that, this, there, here, what, where, who, how, when, why. So "wouldn't've" ->
//     "would not have". 'd is always "would" and 's always "is" (never "had"/"has": the
//     text alone cannot tell). Any other 's is a possessive (or ambiguous) and keeps no
//     apostrophe: "tom's" -> "toms", "o'clock" -> "oclock".
//  6. Remaining apostrophes are removed without a trace (every language but kElision, where
//     an apostrophe separates words); a word left empty disappears.
// Invalid UTF-8 bytes act as separators (the corpus reader rejects such lines earlier).
// On the Tatoeba corpus these rules give exactly what the earlier hand-made Latin-1 tables
// gave (tests/data/normalize_test.cpp checks its word counts and a hash).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace dls::data {

// Which rules apply (data/languages.h maps an ISO code to them): English expands contractions
// (rule 5); kElision (French, Italian, Catalan) ends a word at an apostrophe ("l'homme" ->
// "l homme") instead of rule 6; kTurkish (Turkish, Azerbaijani) lowercases the dotless I;
// Spanish and kOther (any other language, any script) take rules 1-4 and 6 alone.
enum class Language { kEnglish, kSpanish, kElision, kTurkish, kOther };

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

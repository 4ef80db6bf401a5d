#include "dls/util/utf8.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace dls::util {
namespace {

std::vector<char32_t> code_points(std::u32string_view text) { return {text.begin(), text.end()}; }

TEST(Utf8, DecodesOneToFourByteSequences) {
  EXPECT_EQ(decode_utf8("añ€\xf0\x9f\x98\x80"), (std::vector<char32_t>{U'a', 0xF1, 0x20AC, 0x1F600}));
  EXPECT_TRUE(is_valid_utf8("añ€\xf0\x9f\x98\x80"));
  EXPECT_TRUE(is_valid_utf8(""));
  for (const char32_t c : {char32_t{0}, char32_t{0x7F}, char32_t{0x80}, char32_t{0x7FF}, char32_t{0x800},
                           char32_t{0xFFFF}, char32_t{0x10000}, char32_t{0x10FFFF}}) {
    EXPECT_EQ(decode_utf8(encode_utf8(c)), std::vector<char32_t>{c});
    std::string appended;
    append_utf8(appended, c);
    EXPECT_EQ(appended, encode_utf8(c));
  }
}

TEST(Utf8, RejectsMalformedSequences) {
  const std::vector<std::string> bad = {
      "\x80",              // stray continuation byte
      "\xC0\x80",          // overlong NUL
      "\xE0\x80\xAF",      // overlong '/'
      "\xED\xA0\x80",      // surrogate U+D800
      "\xF4\x90\x80\x80",  // above U+10FFFF
      "\xE2\x82",          // cut short
      "\xC3\x41",          // continuation missing
      "\xFF",
  };
  for (const std::string& b : bad) {
    EXPECT_FALSE(is_valid_utf8("ok " + b + " ok")) << ::testing::PrintToString(b);
  }
}

TEST(Utf8, InvalidBytesBecomeReplacementCharacters) {
  const char32_t r = kReplacementChar;
  EXPECT_EQ(decode_utf8("a\xff"
                        "b"),
            (std::vector<char32_t>{U'a', r, U'b'}));
  EXPECT_EQ(decode_utf8("\xc3"), std::vector<char32_t>{r});  // truncated
  EXPECT_EQ(decode_utf8("\xc3"
                        "a"),
            (std::vector<char32_t>{r, U'a'}));
  EXPECT_EQ(decode_utf8("\xe2\x82"
                        "a"),
            (std::vector<char32_t>{r, U'a'}));
  EXPECT_EQ(decode_utf8("\xc0\xaf"), std::vector<char32_t>{r});      // overlong '/'
  EXPECT_EQ(decode_utf8("\xed\xa0\x80"), std::vector<char32_t>{r});  // surrogate
  EXPECT_EQ(encode_utf8(0xD800), encode_utf8(r));
  EXPECT_EQ(encode_utf8(0x110000), encode_utf8(r));
}

TEST(Utf8, AppendWritesSurrogatesAsPythonsSurrogatepass) {
  std::string text;
  append_utf8(text, 0xD83D);
  EXPECT_EQ(text, "\xED\xA0\xBD");
  EXPECT_FALSE(is_valid_utf8(text));
}

TEST(Utf8, NfcComposesDecomposedAccents) {
  // "é" as e + U+0301, "ñ" as n + U+0303, "Å" as A + U+030A: one code point each.
  EXPECT_EQ(nfc_code_points("cafe\xcc\x81 nin\xcc\x83o A\xcc\x8a"), code_points(U"café niño Å"));
  EXPECT_EQ(nfc_code_points("café"), decode_utf8("café"));
  // Canonical order of two marks does not matter: a + dot below + acute either way.
  EXPECT_EQ(nfc_code_points("a\xcc\xa3\xcc\x81"), nfc_code_points("a\xcc\x81\xcc\xa3"));
  // A Hangul syllable written as three jamo composes; malformed bytes stay U+FFFD.
  EXPECT_EQ(nfc_code_points("\xe1\x84\x80\xe1\x85\xa1\xe1\x86\xa8"), code_points(U"각"));
  EXPECT_EQ(nfc_code_points("e\xcc\x81\xff"
                            "e\xcc\x81"),
            (std::vector<char32_t>{0xE9, kReplacementChar, 0xE9}));
  EXPECT_TRUE(nfc_code_points("").empty());
}

TEST(Utf8, LowercasesEveryScriptWithoutLocale) {
  const std::vector<std::pair<char32_t, char32_t>> pairs = {
      {U'A', U'a'},
      {U'Z', U'z'},
      {U'Á', U'á'},
      {U'É', U'é'},
      {U'Ñ', U'ñ'},
      {U'Ü', U'ü'},
      {U'Ç', U'ç'},
      {U'Ø', U'ø'},
      {U'Þ', U'þ'},
      {U'Č', U'č'},
      {U'Ł', U'ł'},
      {U'Ő', U'ő'},
      {U'Œ', U'œ'},
      {U'Ÿ', U'ÿ'},
      {U'Ĳ', U'ĳ'},
      {U'Ǆ', U'ǆ'},
      {U'Ș', U'ș'},
      // Greek, Cyrillic (incl. historic letters), Armenian, fullwidth Latin
      {U'Ω', U'ω'},
      {U'Ά', U'ά'},
      {U'Σ', U'σ'},
      {U'Ж', U'ж'},
      {U'Ё', U'ё'},
      {U'Ѣ', U'ѣ'},
      {U'Ґ', U'ґ'},
      {U'Ա', U'ա'},
      {U'Ａ', U'ａ'},
      // Turkish: no locale, so dotless and dotted capitals both give plain i, and the
      // small dotless ı stays itself.
      {U'I', U'i'},
      {U'İ', U'i'},
      {U'ı', U'ı'},
      // unchanged: small letters, ß, symbols, digits, letters without case
      {U'a', U'a'},
      {U'ß', U'ß'},
      {U'ς', U'ς'},
      {U'×', U'×'},
      {U'ĸ', U'ĸ'},
      {U'1', U'1'},
      {U'¿', U'¿'},
      {U'日', U'日'},
  };
  for (const auto& [upper, lower] : pairs) {
    EXPECT_EQ(to_lower(upper), lower) << std::hex << static_cast<unsigned>(upper);
  }
  for (char32_t c = 0; c < 0x3000; ++c) EXPECT_EQ(to_lower(to_lower(c)), to_lower(c)) << c;
}

TEST(Utf8, CategoriesComeFromUnicode) {
  for (const char32_t c :
       {U'.', U',', U'¿', U'¡', U'«', U'»', U'—', U'…', U'“', U'’', U'_', U'‽', U'、', U'。', U'¶'}) {
    EXPECT_EQ(char_category(c), CharCategory::kPunctuation) << std::hex << static_cast<unsigned>(c);
  }
  for (const char32_t c : {U'+', U'$', U'€', U'°', U'©', U'´', U'^', U'→', U'∑', U'😀'}) {
    EXPECT_EQ(char_category(c), CharCategory::kSymbol) << std::hex << static_cast<unsigned>(c);
  }
  for (const char32_t c : {U' ', U'\u00a0', U'\u2009', U'\u3000', U'\u2028'}) {
    EXPECT_EQ(char_category(c), CharCategory::kSeparator) << std::hex << static_cast<unsigned>(c);
  }
  for (const char32_t c : {U'\u00ad', U'\u200b', U'\u200d', U'\ufeff', U'\u200f'}) {
    EXPECT_EQ(char_category(c), CharCategory::kFormat) << std::hex << static_cast<unsigned>(c);
  }
  EXPECT_EQ(char_category(U'\t'), CharCategory::kControl);
  EXPECT_EQ(char_category(U'ñ'), CharCategory::kLetter);
  EXPECT_EQ(char_category(U'º'), CharCategory::kLetter);
  EXPECT_EQ(char_category(0x301), CharCategory::kMark);
  EXPECT_EQ(char_category(U'7'), CharCategory::kNumber);
  EXPECT_EQ(char_category(U'½'), CharCategory::kNumber);
  EXPECT_EQ(char_category(0xE000), CharCategory::kOther);  // private use
}

TEST(Utf8, DisplayWidthCountsColumns) {
  EXPECT_EQ(display_width("canción"), 7);
  EXPECT_EQ(display_width("ÉLAN ñu"), 7);
  EXPECT_EQ(display_width("e\xcc\x81"), 1);  // e + combining acute
  EXPECT_EQ(display_width("日本"), 4);
  EXPECT_EQ(display_width(""), 0);
}

TEST(Utf8, TruncatesOnWholeCodePoints) {
  EXPECT_EQ(truncate_to_width("canción", 5), "canci");
  EXPECT_EQ(truncate_to_width("canción", 6), "canció");
  EXPECT_EQ(truncate_to_width("日本", 3), "日");
  EXPECT_EQ(truncate_to_width("abc", 10), "abc");
}

}  // namespace
}  // namespace dls::util

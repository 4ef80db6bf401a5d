#include "dls/data/utf8.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace dls::data {
namespace {

TEST(Utf8, DecodesOneToFourByteSequences) {
  const std::string text = "a\xC3\xB1\xE2\x82\xAC\xF0\x9F\x99\x82";  // a ñ € 🙂
  std::size_t pos = 0;
  EXPECT_EQ(decode_utf8(text, pos), U'a');
  EXPECT_EQ(decode_utf8(text, pos), char32_t{0xF1});
  EXPECT_EQ(decode_utf8(text, pos), char32_t{0x20AC});
  EXPECT_EQ(decode_utf8(text, pos), char32_t{0x1F642});
  EXPECT_EQ(pos, text.size());
  EXPECT_TRUE(is_valid_utf8(text));
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
    std::size_t pos = 0;
    EXPECT_EQ(decode_utf8(b, pos), kInvalidCodePoint);
    EXPECT_EQ(pos, 1u);  // resynchronises on the next byte
  }
  EXPECT_TRUE(is_valid_utf8(""));
}

TEST(Utf8, EncodeDecodeRoundTrip) {
  for (const char32_t c :
       {char32_t{0}, char32_t{0x7F}, char32_t{0x80}, char32_t{0x7FF}, char32_t{0x800},
        char32_t{0xFFFF}, char32_t{0x10000}, char32_t{0x10FFFF}}) {
    std::string text;
    append_utf8(text, c);
    std::size_t pos = 0;
    EXPECT_EQ(decode_utf8(text, pos), c);
    EXPECT_EQ(pos, text.size());
  }
}

TEST(Utf8, LowercasesLatinGreekCyrillicCapitals) {
  const std::vector<std::pair<char32_t, char32_t>> pairs = {
      {U'A', U'a'},
      {U'Z', U'z'},
      {U'Á', U'á'},
      {U'É', U'é'},
      {U'Í', U'í'},
      {U'Ó', U'ó'},
      {U'Ú', U'ú'},
      {U'Ñ', U'ñ'},
      {U'Ü', U'ü'},
      {U'Ç', U'ç'},
      {U'À', U'à'},
      {U'Ø', U'ø'},
      {U'Þ', U'þ'},
      {U'Ā', U'ā'},
      {U'Č', U'č'},
      {U'Ł', U'ł'},
      {U'Ŋ', U'ŋ'},
      {U'Ő', U'ő'},
      {U'Œ', U'œ'},
      {U'Š', U'š'},
      {U'Ž', U'ž'},
      {U'Ÿ', U'ÿ'},
      {U'İ', U'i'},
      {U'Ĳ', U'ĳ'},
      {U'Ω', U'ω'},
      {U'Ά', U'ά'},
      {U'Ж', U'ж'},
      {U'Ё', U'ё'},
      // unchanged: small letters, symbols, letters without a small form here
      {U'a', U'a'},
      {U'ß', U'ß'},
      {U'×', U'×'},
      {U'ı', U'ı'},
      {U'ĸ', U'ĸ'},
      {U'ŉ', U'ŉ'},
      {U'1', U'1'},
      {U'¿', U'¿'},
      {U'日', U'日'},
  };
  for (const auto& [upper, lower] : pairs) {
    EXPECT_EQ(to_lower(upper), lower) << std::hex << static_cast<unsigned>(upper);
  }
  // Lowercasing is idempotent, and a small letter never maps elsewhere.
  for (char32_t c = 0; c < 0x500; ++c) EXPECT_EQ(to_lower(to_lower(c)), to_lower(c)) << c;
}

}  // namespace
}  // namespace dls::data

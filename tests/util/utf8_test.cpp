#include "dls/util/utf8.h"

#include <gtest/gtest.h>

namespace dls::util {
namespace {

TEST(Utf8, DecodesOneToFourByteSequences) {
  EXPECT_EQ(decode_utf8("añ€\xf0\x9f\x98\x80"),
            (std::vector<char32_t>{U'a', 0xF1, 0x20AC, 0x1F600}));
  for (char32_t c : {U'a', char32_t(0xF1), char32_t(0x20AC), char32_t(0x1F600)}) {
    EXPECT_EQ(decode_utf8(encode_utf8(c)), std::vector<char32_t>{c});
  }
}

TEST(Utf8, InvalidBytesBecomeReplacementCharacters) {
  const char32_t r = kReplacementChar;
  EXPECT_EQ(decode_utf8("a\xff" "b"), (std::vector<char32_t>{U'a', r, U'b'}));
  EXPECT_EQ(decode_utf8("\xc3"), std::vector<char32_t>{r});           // truncated
  EXPECT_EQ(decode_utf8("\xc3" "a"), (std::vector<char32_t>{r, U'a'}));
  EXPECT_EQ(decode_utf8("\xc0\xaf"), std::vector<char32_t>{r});       // overlong '/'
  EXPECT_EQ(decode_utf8("\xed\xa0\x80"), std::vector<char32_t>{r});   // surrogate
  EXPECT_EQ(encode_utf8(0xD800), encode_utf8(r));
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

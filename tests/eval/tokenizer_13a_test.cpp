// sacreBLEU's 13a tokeniser on the strings of its own tests and on strings that exercise
// each rule. Expected outputs: "I'm a student." as flexeval's test of Tokenizer13a
// publishes it; the others are the regexes of sacrebleu/tokenizers/tokenizer_re.py (2.x)
// applied by Python 3's re module (this machine has no sacreBLEU package to call).
#include "dls/eval/tokenizer_13a.h"

#include <gtest/gtest.h>

#include <initializer_list>
#include <string_view>
#include <utility>

namespace dls::eval {
namespace {

// Each text through tokenize_13a, against its expected tokens.
void expect_tokens(std::initializer_list<std::pair<std::string_view, std::string_view>> cases) {
  for (const auto& [text, tokens] : cases) EXPECT_EQ(tokenize_13a(text), tokens) << text;
}

TEST(Tokenizer13a, SentencesOfSacreBleusTests) {
  expect_tokens({
      // test/test_bleu.py's hypotheses and references.
      {"It wasn't surprising.", "It wasn't surprising ."},
      {"The dog bit the man.", "The dog bit the man ."},
      {"I'm a student.", "I'm a student ."},
  });
}

TEST(Tokenizer13a, EachRule) {
  expect_tokens({
      // Rule 1: ASCII symbols; '-' and '\'' are not among them.
      {"e-mail: a@b.com/x?y=1&z=2", "e-mail : a @ b . com / x ? y = 1 & z = 2"},
      {"[a]{b}|c~d^e_f`g\\h", "[ a ] { b } | c ~ d ^ e _ f ` g \\ h"},
      // Rules 2 and 3: periods and commas split unless between digits.
      {"3.5, 4-5 (see p.7)", "3.5 , 4 - 5 ( see p . 7 )"},
      {"Hello,world...end.\"", "Hello , world . . . end . \""},
      {"x.,y ,.9 a-b 9-9", "x . , y , .9 a-b 9 - 9"},
      // Escapes, <skipped>, line breaks (a hyphen at a line break joins the word).
      {"&amp;quot; &lt;b&gt; <skipped>x", "& quot ; < b > x"},
      {"line-\nbroken\nnext", "linebroken next"},
  });
}

TEST(Tokenizer13a, NonAsciiTextAndPythonWhitespace) {
  expect_tokens({
      {"¿Qué? ¡Sí!, 1,000.50 año.", "¿Qué ? ¡Sí ! , 1,000.50 año ."},
      {"Zoë — “quoted”, 100.000,5 km.", "Zoë — “quoted” , 100.000,5 km ."},
      // No-break space, ideographic space and thin space separate words, as in Python.
      {"a\u00a0b\u3000c d\u2009e", "a b c d e"},
      {"", ""},
      {" \t ", ""},
  });
}

TEST(Tokenizer13a, PythonSplitAndRstrip) {
  EXPECT_EQ(split_python_whitespace("  a\x1f b\u2028c\u0085d  "), (std::vector<std::string>{"a", "b", "c", "d"}));
  EXPECT_TRUE(split_python_whitespace("\u3000 \n").empty());
  EXPECT_EQ(rstrip_python_whitespace("end.  \n"), "end.");
  EXPECT_EQ(rstrip_python_whitespace("año\u00a0\u205f"), "año");
  EXPECT_EQ(rstrip_python_whitespace("año"), "año");  // ends in a two-byte letter, kept
  EXPECT_EQ(rstrip_python_whitespace(" \t"), "");
  EXPECT_FALSE(is_python_whitespace(U'\u200b'));  // zero-width space is not whitespace in Python
  EXPECT_TRUE(is_python_whitespace(U'\u202f'));
}

}  // namespace
}  // namespace dls::eval

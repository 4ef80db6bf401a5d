// sacreBLEU's default BLEU tokeniser "13a" (the rules of WMT's mteval-v13a.pl, as
// sacrebleu/tokenizers/tokenizer_13a.py and tokenizer_re.py of sacreBLEU 2.x apply them),
// and Python's notion of whitespace, which sacreBLEU's BLEU and chrF split and strip by.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace dls::eval {

// Python's str.isspace() for one code point: \t \n \v \f \r, the separators \x1c-\x1f,
// space, U+0085, U+00A0, U+1680, U+2000-U+200A, U+2028, U+2029, U+202F, U+205F, U+3000.
bool is_python_whitespace(char32_t code_point);

// Python's str.split() without arguments on UTF-8 text: the runs between Python whitespace,
// no empty pieces. Malformed UTF-8 comes back with U+FFFD in its place.
std::vector<std::string> split_python_whitespace(std::string_view text);

// Python's str.rstrip() without arguments: the text without its trailing Python whitespace.
std::string_view rstrip_python_whitespace(std::string_view text);

// Tokenizer13a()(line): removes "<skipped>" and "-\n", turns "\n" into a space, unescapes
// &quot; &amp; &lt; &gt; (in that order), then, on " line ":
//   1. every ASCII character of { | } ~ [ \ ] ^ _ ` space ! " # $ % & ( ) * + : ; < = > ? @ /
//      gets a space on each side;
//   2. a '.' or ',' after a non-digit gets a space on each side;
//   3. a '.' or ',' before a non-digit gets a space on each side;
//   4. a '-' after a digit gets a space on each side;
// each rule a left-to-right pass of non-overlapping matches, as Python's re.sub. The result
// is the pieces joined by single spaces: "It wasn't surprising." -> "It wasn't surprising .",
// "3.5, 4-5" -> "3.5 , 4 - 5". Letters, digits, apostrophes and non-ASCII characters never
// split a word.
std::string tokenize_13a(std::string_view line);

}  // namespace dls::eval

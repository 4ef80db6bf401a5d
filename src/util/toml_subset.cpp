#include "dls/util/toml_subset.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace dls::util {

namespace {

// One pass over a file's text; fail() names the file and a line.
class TomlReader {
 public:
  TomlReader(std::string text, std::string file) : text_(std::move(text)), file_(std::move(file)) {}

  std::vector<TomlItem> items() {
    if (text_.compare(0, 3, "\xEF\xBB\xBF") == 0) pos_ = 3;  // a UTF-8 byte-order mark (some editors write one)
    check_bytes();
    std::vector<TomlItem> items;
    std::map<std::string, int> seen;  // name -> line
    for (skip_space(true); pos_ < text_.size(); skip_space(true)) {
      const int line = line_;
      TomlItem item;
      item.line = line;
      item.name = name();
      if (const auto earlier = seen.find(item.name); earlier != seen.end())
        fail("'" + item.name + "' is given twice (first on line " + std::to_string(earlier->second) + ")");
      seen[item.name] = line;
      skip_space(false);
      if (peek() != '=') fail("expected '=' after '" + item.name + "'");
      ++pos_;
      skip_space(false);
      item.is_array = peek() == '[';
      if (item.is_array) {
        array(item);
      } else {
        add_scalar(item);
      }
      skip_space(false);
      if (pos_ < text_.size() && peek() != '\n') fail("unexpected text after the value of '" + item.name + "'");
      items.push_back(std::move(item));
    }
    return items;
  }

 private:
  [[noreturn]] void fail(const std::string& what, int line = 0) const {
    throw TomlError(file_ + ":" + std::to_string(line > 0 ? line : line_) + ": " + what);
  }
  char peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  // A NUL byte means another kind of file: named by line at once. Bytes that are no UTF-8 are
  // left alone: a path on Linux may hold them (in a string; as a word they are refused).
  void check_bytes() const {
    int line = 1;
    for (const char c : text_) {
      if (c == '\0') fail("a NUL byte: not a text file", line);
      if (c == '\n') ++line;
    }
  }
  // Blanks and a comment; with `newlines`, also line ends (between lines, inside arrays).
  void skip_space(bool newlines) {
    for (;;) {
      while (peek() == ' ' || peek() == '\t' || peek() == '\r') ++pos_;
      if (peek() == '#') {
        while (pos_ < text_.size() && peek() != '\n') ++pos_;
      }
      if (!newlines || peek() != '\n') return;
      ++pos_, ++line_;
    }
  }
  static bool bare_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
           c == '+' || c == '.';
  }
  std::string name() {
    if (peek() == '[') fail("sections ([name]) are not used by these programs' config files");
    if (peek() == '"' || peek() == '\'') {  // a quoted key: "epochs" = 3
      const auto key = peek() == '"' ? basic_string() : literal_string();
      if (key.empty()) fail("an empty key (\"\")");
      return key;
    }
    const auto start = pos_;
    while (bare_char(peek()) && peek() != '+' && peek() != '.') ++pos_;
    if (pos_ == start) fail("expected an option name (name = value)");
    const auto key = text_.substr(start, pos_ - start);
    if (key[0] == '-') {
      fail("'" + key + "': a key is the flag's name without its dashes ('" + key.substr(key.find_first_not_of('-')) +
           "')");
    }
    return key;
  }
  void add_scalar(TomlItem& item) {
    item.quoted.push_back(peek() == '"' || peek() == '\'');
    item.values.push_back(scalar());
  }
  std::string scalar() {
    if (text_.compare(pos_, 3, "\"\"\"") == 0 || text_.compare(pos_, 3, "'''") == 0)
      fail("multi-line strings are not read here: write the value on one line, in \"...\"");
    if (peek() == '"') return basic_string();
    if (peek() == '\'') return literal_string();
    const auto start = pos_;
    while (bare_char(peek())) ++pos_;
    if (pos_ == start) fail("expected a value: a number, true, false, a \"string\" or an [array]");
    return bare_value(text_.substr(start, pos_ - start));
  }
  // A value without quotes: true, false or a number (TOML's 1_000 as 1000); a word is refused,
  // since TOML would refuse it (a string is quoted).
  std::string bare_value(const std::string& token) const {
    if (token == "true" || token == "false") return token;
    std::string lower = token;
    for (auto& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (lower == "true" || lower == "false") fail("'" + token + "': true and false are written in lowercase");
    std::string number;
    for (std::size_t i = 0; i < token.size(); ++i) {
      const bool between_digits = i > 0 && i + 1 < token.size() &&
                                  std::isdigit(static_cast<unsigned char>(token[i - 1])) &&
                                  std::isdigit(static_cast<unsigned char>(token[i + 1]));
      if (token[i] == '_' && between_digits) continue;
      number += token[i];
    }
    const std::size_t digits = number.find_first_not_of("+-");
    if (digits != std::string::npos && digits + 1 < number.size() && number[digits] == '0') {
      const char next = static_cast<char>(std::tolower(static_cast<unsigned char>(number[digits + 1])));
      if (next == 'x' || next == 'o' || next == 'b')
        fail("'" + token + "': write the number in decimal (hexadecimal, octal and binary are not read here)");
      if (std::isdigit(static_cast<unsigned char>(next)))
        fail("'" + token + "': a number with a leading zero (TOML has none; it would be read as octal)");
    }
    const char first = number[0];
    const bool numeric_start = std::isdigit(static_cast<unsigned char>(first)) || first == '+' || first == '-' ||
                               first == '.' || lower == "inf" || lower == "nan";
    char* end = nullptr;
    std::strtod(number.c_str(), &end);
    if (!numeric_start || end == number.c_str() || *end != '\0') {
      fail("'" + token + "' is not a value: a string is written in double quotes (\"" + token + "\")");
    }
    return number;
  }
  std::string literal_string() {
    const int line = line_;
    const auto end = text_.find_first_of("'\n", ++pos_);
    if (end == std::string::npos || text_[end] != '\'') fail("unterminated string (no closing ')", line);
    std::string value = text_.substr(pos_, end - pos_);
    pos_ = end + 1;
    return value;
  }
  std::string basic_string() {
    const int line = line_;
    std::string value;
    for (++pos_;; ++pos_) {
      const char c = peek();
      if (pos_ >= text_.size() || c == '\n') fail("unterminated string (no closing \")", line);
      if (c == '"') break;
      if (c != '\\') {
        value += c;
        continue;
      }
      const char escape = ++pos_ < text_.size() ? text_[pos_] : '\0';
      static const std::map<char, char> simple{{'"', '"'},  {'\\', '\\'}, {'b', '\b'}, {'t', '\t'},
                                               {'n', '\n'}, {'f', '\f'},  {'r', '\r'}};
      if (const auto found = simple.find(escape); found != simple.end()) {
        value += found->second;
      } else if (escape == 'u' || escape == 'U') {
        value += code_point(escape == 'u' ? 4 : 8);
      } else {
        fail(std::string("unknown escape \\") + escape + " in a string (a backslash is written \\\\)");
      }
    }
    ++pos_;
    return value;
  }
  // \uXXXX or \UXXXXXXXX (after the 'u'), as UTF-8.
  std::string code_point(int digits) {
    const std::string hex = text_.substr(pos_ + 1, digits);
    char* end = nullptr;
    const unsigned long cp = std::strtoul(hex.c_str(), &end, 16);
    if (hex.size() != static_cast<std::size_t>(digits) || *end != '\0' || cp > 0x10FFFF ||
        (cp >= 0xD800 && cp <= 0xDFFF))
      fail("bad \\u escape in a string");
    pos_ += digits;
    std::string utf8;
    if (cp < 0x80) return utf8 += static_cast<char>(cp);
    if (cp < 0x800) return utf8 += {static_cast<char>(0xC0 | cp >> 6), static_cast<char>(0x80 | (cp & 0x3F))};
    if (cp < 0x10000)
      return utf8 += {static_cast<char>(0xE0 | cp >> 12), static_cast<char>(0x80 | ((cp >> 6) & 0x3F)),
                      static_cast<char>(0x80 | (cp & 0x3F))};
    return utf8 += {static_cast<char>(0xF0 | cp >> 18), static_cast<char>(0x80 | ((cp >> 12) & 0x3F)),
                    static_cast<char>(0x80 | ((cp >> 6) & 0x3F)), static_cast<char>(0x80 | (cp & 0x3F))};
  }
  // The elements of an array into `item`.
  void array(TomlItem& item) {
    const int line = line_;
    for (++pos_;;) {
      skip_space(true);
      if (pos_ >= text_.size()) fail("unterminated array (no closing ])", line);
      if (peek() == ']') break;
      if (peek() == '[') fail("nested arrays are not used by these programs' config files");
      add_scalar(item);
      skip_space(true);
      if (peek() == ',') {
        ++pos_;
      } else if (peek() != ']') {
        const bool unterminated = pos_ >= text_.size() || line_ != line;
        fail(unterminated ? "unterminated array (no closing ])" : "expected ',' or ']' in an array", line);
      }
    }
    ++pos_;
  }

  std::string text_, file_;
  std::size_t pos_ = 0;
  int line_ = 1;
};

}  // namespace

std::vector<TomlItem> parse_toml_subset(const std::string& text, const std::string& source) {
  return TomlReader(text, source).items();
}

// `text` as a TOML basic string: '"', '\' and control characters escaped, every other byte
// (UTF-8 included) as it is.
std::string toml_value(const std::string& text) {
  std::string quoted = "\"";
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      quoted += '\\', quoted += c;
    } else if (c == '\n') {
      quoted += "\\n";
    } else if (c == '\t') {
      quoted += "\\t";
    } else if (byte < 0x20 || byte == 0x7f) {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\u%04X", byte);
      quoted += escaped;
    } else {
      quoted += c;
    }
  }
  return quoted + "\"";
}
// The shortest text that reads back as the same double.
std::string toml_value(double value) {
  char text[32];
  if (value == std::floor(value) && std::fabs(value) < 1e15) {  // 420, not 4.2e+02
    std::snprintf(text, sizeof text, "%.0f", value);
    return text;
  }
  for (int digits = 1; digits <= 17; ++digits) {
    std::snprintf(text, sizeof text, "%.*g", digits, value);
    if (std::strtod(text, nullptr) == value) break;
  }
  return text;
}

}  // namespace dls::util

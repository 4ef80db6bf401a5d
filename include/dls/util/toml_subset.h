// The TOML subset of the programs' --config files, config.toml and the presets
// (data/presets/): `name = value` lines, `# comments`, values that are basic strings ("..."
// with TOML's escapes), literal strings ('...'), bare numbers and booleans, and arrays of
// those ([a, b], over several lines). Anything else is refused with one line naming the file
// and the line. Read here rather than by CLI11 (2.1.2), whose reader cuts a value at the
// first '#' even inside quotes, keeps backslashes and quotes unescaped, splits unquoted
// values at spaces and accepts an unterminated array or string.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace dls::util {

struct TomlItem {
  std::string name;
  std::vector<std::string> values;  // one for a scalar; an array's elements
  std::vector<bool> quoted;         // per value: written as a string ("..." or '...'), not bare
  bool is_array = false;
  int line = 0;
};

// "FILE:LINE: what is wrong".
struct TomlError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The items of `text`, in order; `source` names it in errors. Throws TomlError.
std::vector<TomlItem> parse_toml_subset(const std::string& text, const std::string& source);

// A value as TOML writes it, read back by parse_toml_subset as the same value: text as a
// basic string ('"', '\' and control characters escaped, UTF-8 as it is), a double as its
// shortest text that reads back the same (0.1, not 0.10000000000000001; 420, not 4.2e+02).
std::string toml_value(const std::string& text);
inline std::string toml_value(const char* text) { return toml_value(std::string(text)); }
inline std::string toml_value(bool value) { return value ? "true" : "false"; }
std::string toml_value(double value);
template <typename Integer, typename = std::enable_if_t<std::is_integral_v<Integer>>>
std::string toml_value(Integer value) {
  return std::to_string(value);
}

}  // namespace dls::util

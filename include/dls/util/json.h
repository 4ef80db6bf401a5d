// A small JSON writer for result files (metrics, evaluation summaries). Writing only.
//
//   JsonWriter json(2);
//   json.begin_object().key("bleu").value(23.4).key("pairs").value(1000)
//       .key("per_epoch").begin_array().value(1.5).value(3.25).end_array().end_object();
//   write_text_atomically("results.json", json.str() + "\n");
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace dls::util {

// A JSON string literal, quotes included: '"', '\' and control characters escaped
// (\n, \t, ... or \u00XX); other bytes, UTF-8 included, passed through unchanged.
std::string json_string(std::string_view text);

// A JSON number: the shortest of %.15g, %.16g and %.17g that reads back as the same
// double (0.1 -> "0.1", 0.1 + 0.2 -> "0.30000000000000004"); NaN and infinities -> "null".
std::string json_number(double value);

// Builds a JSON text token by token. Misuse (a value where a key is needed, a key outside
// an object, unbalanced ends, a second top-level value) throws std::logic_error.
class JsonWriter {
 public:
  // indent 0: compact, everything on one line; > 0: that many spaces per level.
  explicit JsonWriter(int indent = 0) : indent_(indent) {}

  JsonWriter& begin_object();
  JsonWriter& end_object();
  JsonWriter& begin_array();
  JsonWriter& end_array();
  JsonWriter& key(std::string_view name);

  JsonWriter& value(std::string_view text);
  JsonWriter& value(const char* text) { return value(std::string_view(text)); }
  JsonWriter& value(double number);
  JsonWriter& value(bool flag);
  template <typename Int, std::enable_if_t<std::is_integral_v<Int> && !std::is_same_v<Int, bool>, int> = 0>
  JsonWriter& value(Int number) {
    return raw(std::to_string(number));
  }
  JsonWriter& null();

  // The text; throws std::logic_error while an object or array is still open.
  const std::string& str() const;

 private:
  struct Level {
    bool object;
    int count;  // entries written so far
  };
  JsonWriter& raw(const std::string& token);  // a scalar value
  JsonWriter& open(bool object);
  JsonWriter& close(bool object);
  void before_value();
  void newline(std::size_t depth);

  int indent_;
  std::string out_;
  std::vector<Level> stack_;
  bool key_pending_ = false;
  bool done_ = false;  // the top-level value is complete
};

}  // namespace dls::util

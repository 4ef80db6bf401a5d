// A small JSON writer for result files (metrics, evaluation summaries), a thin layer over
// nlohmann::ordered_json (kept out of this header: it is large), which does the escaping
// and the number formatting. Keys keep the order they were written in.
//
//   JsonWriter json(2);
//   json.begin_object().key("bleu").value(23.4).key("pairs").value(1000)
//       .key("per_epoch").begin_array().value(1.5).value(3.25).end_array().end_object();
//   write_text_atomically("results.json", json.str() + "\n");
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>

namespace dls::util {

// A JSON string literal, quotes included: '"', '\\' and control characters escaped
// (\n, \t, ... or \u00XX); other characters, UTF-8 included, passed through unchanged;
// bytes that are not valid UTF-8 become U+FFFD (JSON text is UTF-8).
std::string json_string(std::string_view text);

// A JSON number: the shortest text that reads back as the same double (0.1 -> "0.1",
// 0.1 + 0.2 -> "0.30000000000000004", 3.0 -> "3.0"); NaN and infinities -> "null"
// (JSON has no NaN).
std::string json_number(double value);

// Builds a JSON text token by token. Misuse (a value where a key is needed, a key outside
// an object, a key given twice in one object, unbalanced ends, a second top-level value)
// throws std::logic_error.
class JsonWriter {
 public:
  // indent 0: compact, everything on one line; > 0: that many spaces per level.
  explicit JsonWriter(int indent = 0);
  ~JsonWriter();
  JsonWriter(JsonWriter&&) noexcept;
  JsonWriter& operator=(JsonWriter&&) noexcept;

  JsonWriter& begin_object();
  JsonWriter& end_object();
  JsonWriter& begin_array();
  JsonWriter& end_array();
  JsonWriter& key(std::string_view name);

  JsonWriter& value(std::string_view text);
  JsonWriter& value(const char* text) { return value(std::string_view(text)); }
  JsonWriter& value(double number);  // NaN and infinities are written as null
  JsonWriter& value(bool flag);
  template <typename Int, std::enable_if_t<std::is_integral_v<Int> && !std::is_same_v<Int, bool>, int> = 0>
  JsonWriter& value(Int number) {
    if constexpr (std::is_signed_v<Int>) {
      return signed_value(static_cast<std::int64_t>(number));
    } else {
      return unsigned_value(static_cast<std::uint64_t>(number));
    }
  }
  JsonWriter& null();
  // key(name) and its value in one call.
  template <typename T>
  JsonWriter& field(std::string_view name, const T& v) {
    return key(name).value(v);
  }

  // The text; throws std::logic_error while an object or array is still open.
  const std::string& str() const;

 private:
  struct Document;  // the nlohmann::ordered_json tree being built (json.cpp)
  JsonWriter& signed_value(std::int64_t number);
  JsonWriter& unsigned_value(std::uint64_t number);

  std::unique_ptr<Document> document_;
};

}  // namespace dls::util

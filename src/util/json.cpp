#include "dls/util/json.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <stdexcept>
#include <utility>
#include <vector>

namespace dls::util {

namespace {

using Json = nlohmann::ordered_json;

// Compact (indent -1) or indented text; invalid UTF-8 in strings becomes U+FFFD instead
// of an exception, so that a file name in another encoding cannot stop a report.
std::string dump(const Json& json, int indent) {
  return json.dump(indent > 0 ? indent : -1, ' ', false, Json::error_handler_t::replace);
}

}  // namespace

std::string json_string(std::string_view text) { return dump(Json(std::string(text)), 0); }

std::string json_number(double value) { return dump(Json(value), 0); }

struct JsonWriter::Document {
  int indent = 0;
  Json root;
  bool started = false;            // the top-level value has begun
  std::vector<Json*> open;         // objects/arrays being filled, innermost last
  std::optional<std::string> key;  // given, its value not yet
  mutable std::string text;        // str()'s result

  // Puts `value` where the next value goes and returns it there. The pointers in `open`
  // stay valid: only the innermost container grows while it is open.
  Json& add(Json value) {
    if (open.empty()) {
      if (started) throw std::logic_error("JsonWriter: a second top-level value");
      started = true;
      root = std::move(value);
      return root;
    }
    Json& container = *open.back();
    if (container.is_array()) {
      container.push_back(std::move(value));
      return container.back();
    }
    if (!key) throw std::logic_error("JsonWriter: a value in an object needs a key first");
    auto [it, inserted] = container.emplace(*key, std::move(value));
    if (!inserted) throw std::logic_error("JsonWriter: key \"" + *key + "\" given twice");
    key.reset();
    return it.value();
  }

  void begin(Json empty) { open.push_back(&add(std::move(empty))); }

  void end(bool object) {
    if (open.empty() || open.back()->is_object() != object || key) {
      throw std::logic_error(std::string("JsonWriter: ") + (object ? "end_object" : "end_array") + " without an open " +
                             (object ? "object" : "array") + " (or right after a key)");
    }
    open.pop_back();
  }
};

JsonWriter::JsonWriter(int indent) : document_(std::make_unique<Document>()) { document_->indent = indent; }
JsonWriter::~JsonWriter() = default;
JsonWriter::JsonWriter(JsonWriter&&) noexcept = default;
JsonWriter& JsonWriter::operator=(JsonWriter&&) noexcept = default;

JsonWriter& JsonWriter::key(std::string_view name) {
  Document& d = *document_;
  if (d.open.empty() || !d.open.back()->is_object() || d.key) {
    throw std::logic_error("JsonWriter: key \"" + std::string(name) + "\" outside an object or after another key");
  }
  d.key = std::string(name);
  return *this;
}

JsonWriter& JsonWriter::begin_object() {
  document_->begin(Json::object());
  return *this;
}
JsonWriter& JsonWriter::end_object() {
  document_->end(true);
  return *this;
}
JsonWriter& JsonWriter::begin_array() {
  document_->begin(Json::array());
  return *this;
}
JsonWriter& JsonWriter::end_array() {
  document_->end(false);
  return *this;
}
JsonWriter& JsonWriter::value(std::string_view text) {
  document_->add(Json(std::string(text)));
  return *this;
}
JsonWriter& JsonWriter::value(double number) {
  document_->add(Json(number));
  return *this;
}
JsonWriter& JsonWriter::value(bool flag) {
  document_->add(Json(flag));
  return *this;
}
JsonWriter& JsonWriter::signed_value(std::int64_t number) {
  document_->add(Json(number));
  return *this;
}
JsonWriter& JsonWriter::unsigned_value(std::uint64_t number) {
  document_->add(Json(number));
  return *this;
}
JsonWriter& JsonWriter::null() {
  document_->add(Json(nullptr));
  return *this;
}

const std::string& JsonWriter::str() const {
  const Document& d = *document_;
  if (!d.open.empty()) {
    throw std::logic_error("JsonWriter: " + std::to_string(d.open.size()) + " unclosed object(s)/array(s)");
  }
  d.text = dump(d.root, d.indent);
  return d.text;
}

}  // namespace dls::util

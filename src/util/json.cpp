#include "dls/util/json.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

namespace dls::util {

std::string json_string(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buffer[8];
          std::snprintf(buffer, sizeof(buffer), "\\u%04x", static_cast<unsigned>(c));
          out += buffer;
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

std::string json_number(double value) {
  if (!std::isfinite(value)) return "null";
  char buffer[40];
  for (int digits = 15; digits <= 17; ++digits) {
    std::snprintf(buffer, sizeof(buffer), "%.*g", digits, value);
    if (std::strtod(buffer, nullptr) == value) break;
  }
  return buffer;
}

void JsonWriter::newline(std::size_t depth) {
  if (indent_ <= 0) return;
  out_ += '\n';
  out_.append(depth * static_cast<std::size_t>(indent_), ' ');
}

void JsonWriter::before_value() {
  if (done_) throw std::logic_error("JsonWriter: a second top-level value");
  if (stack_.empty()) return;
  Level& level = stack_.back();
  if (level.object) {
    if (!key_pending_) throw std::logic_error("JsonWriter: a value in an object needs a key first");
    key_pending_ = false;
    return;
  }
  if (level.count++ > 0) out_ += ',';
  newline(stack_.size());
}

JsonWriter& JsonWriter::raw(const std::string& token) {
  before_value();
  out_ += token;
  if (stack_.empty()) done_ = true;
  return *this;
}

JsonWriter& JsonWriter::key(std::string_view name) {
  if (stack_.empty() || !stack_.back().object || key_pending_) {
    throw std::logic_error("JsonWriter: key \"" + std::string(name) + "\" outside an object or after another key");
  }
  if (stack_.back().count++ > 0) out_ += ',';
  newline(stack_.size());
  out_ += json_string(name);
  out_ += indent_ > 0 ? ": " : ":";
  key_pending_ = true;
  return *this;
}

JsonWriter& JsonWriter::open(bool object) {
  before_value();
  out_ += object ? '{' : '[';
  stack_.push_back({object, 0});
  return *this;
}

JsonWriter& JsonWriter::close(bool object) {
  if (stack_.empty() || stack_.back().object != object || key_pending_) {
    throw std::logic_error(std::string("JsonWriter: ") + (object ? "end_object" : "end_array") +
                           " without an open " + (object ? "object" : "array") +
                           " (or right after a key)");
  }
  const bool empty = stack_.back().count == 0;
  stack_.pop_back();
  if (!empty) newline(stack_.size());
  out_ += object ? '}' : ']';
  if (stack_.empty()) done_ = true;
  return *this;
}

JsonWriter& JsonWriter::begin_object() { return open(true); }
JsonWriter& JsonWriter::end_object() { return close(true); }
JsonWriter& JsonWriter::begin_array() { return open(false); }
JsonWriter& JsonWriter::end_array() { return close(false); }
JsonWriter& JsonWriter::value(std::string_view text) { return raw(json_string(text)); }
JsonWriter& JsonWriter::value(double number) { return raw(json_number(number)); }
JsonWriter& JsonWriter::value(bool flag) { return raw(flag ? "true" : "false"); }
JsonWriter& JsonWriter::null() { return raw("null"); }

const std::string& JsonWriter::str() const {
  if (!stack_.empty()) throw std::logic_error("JsonWriter: " + std::to_string(stack_.size()) + " unclosed object(s)/array(s)");
  return out_;
}

}  // namespace dls::util

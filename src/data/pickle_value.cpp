// PickleValue: construction, typed access, equality and a Python-like repr.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#include "dls/data/pickle.h"

namespace dls::data {

namespace {

[[noreturn]] void wrong_kind(const char* expected, PickleValue::Kind got) {
  throw std::runtime_error(std::string("pickle value: expected ") + expected + ", got " + PickleValue::kind_name(got));
}

// Python's repr of a float: the shortest form that reads back to the same double.
std::string float_repr(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  char buffer[40];
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buffer, sizeof(buffer), "%.*g", precision, value);
    if (std::strtod(buffer, nullptr) == value) break;
  }
  std::string text = buffer;
  if (text.find_first_of(".en") == std::string::npos) text += ".0";
  return text;
}

// Quoted text with backslash escapes for the quote, the backslash and control bytes;
// other bytes (UTF-8 included) are copied. `prefix` is "" for str, "b" for bytes.
std::string quoted(const std::string& text, const char* prefix) {
  std::string out = std::string(prefix) + "'";
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '\'' || c == '\\') {
      out += '\\';
      out += c;
    } else if (byte < 0x20 || byte == 0x7F || (prefix[0] == 'b' && byte >= 0x80)) {
      char escape[8];
      std::snprintf(escape, sizeof(escape), "\\x%02x", byte);
      out += escape;
    } else {
      out += c;
    }
  }
  return out + "'";
}

}  // namespace

PickleValue PickleValue::boolean(bool value) {
  PickleValue v(Kind::kBool);
  v.bool_ = value;
  return v;
}

PickleValue PickleValue::integer(std::int64_t value) {
  PickleValue v(Kind::kInt);
  v.int_ = value;
  return v;
}

PickleValue PickleValue::floating(double value) {
  PickleValue v(Kind::kFloat);
  v.float_ = value;
  return v;
}

PickleValue PickleValue::string(std::string utf8) { return text(Kind::kString, std::move(utf8)); }

PickleValue PickleValue::bytes(std::string data) { return text(Kind::kBytes, std::move(data)); }

PickleValue PickleValue::text(Kind kind, std::string content) {
  PickleValue v(kind);
  v.text_ = std::make_shared<const std::string>(std::move(content));
  return v;
}

PickleValue PickleValue::list(Items items) { return sequence(Kind::kList, std::move(items)); }

PickleValue PickleValue::tuple(Items items) { return sequence(Kind::kTuple, std::move(items)); }

PickleValue PickleValue::sequence(Kind kind, Items items) {
  PickleValue v(kind);
  v.items_ = std::make_shared<Items>(std::move(items));
  return v;
}

PickleValue PickleValue::dict(Entries entries) {
  PickleValue v(Kind::kDict);
  v.entries_ = std::make_shared<Entries>(std::move(entries));
  return v;
}

bool PickleValue::as_bool() const {
  if (kind_ != Kind::kBool) wrong_kind("bool", kind_);
  return bool_;
}

std::int64_t PickleValue::as_int() const {
  if (kind_ != Kind::kInt) wrong_kind("int", kind_);
  return int_;
}

double PickleValue::as_float() const {
  if (kind_ != Kind::kFloat) wrong_kind("float", kind_);
  return float_;
}

const std::string& PickleValue::as_string() const {
  if (kind_ != Kind::kString) wrong_kind("str", kind_);
  return *text_;
}

const std::string& PickleValue::as_bytes() const {
  if (kind_ != Kind::kBytes) wrong_kind("bytes", kind_);
  return *text_;
}

const PickleValue::Items& PickleValue::items() const {
  if (kind_ != Kind::kList && kind_ != Kind::kTuple) wrong_kind("list or tuple", kind_);
  return *items_;
}

const PickleValue::Entries& PickleValue::entries() const {
  if (kind_ != Kind::kDict) wrong_kind("dict", kind_);
  return *entries_;
}

const PickleValue* PickleValue::find(const PickleValue& key) const {
  for (const auto& [k, v] : entries()) {
    if (k == key) return &v;
  }
  return nullptr;
}

bool PickleValue::operator==(const PickleValue& other) const {
  if (kind_ != other.kind_) return false;
  switch (kind_) {
    case Kind::kNone:
      return true;
    case Kind::kBool:
      return bool_ == other.bool_;
    case Kind::kInt:
      return int_ == other.int_;
    case Kind::kFloat:
      return float_ == other.float_;
    case Kind::kString:
    case Kind::kBytes:
      return text_ == other.text_ || *text_ == *other.text_;
    case Kind::kList:
    case Kind::kTuple:
      return items_ == other.items_ || *items_ == *other.items_;
    case Kind::kDict:
      return entries_ == other.entries_ || *entries_ == *other.entries_;
  }
  return false;
}

std::string PickleValue::repr() const {
  switch (kind_) {
    case Kind::kNone:
      return "None";
    case Kind::kBool:
      return bool_ ? "True" : "False";
    case Kind::kInt:
      return std::to_string(int_);
    case Kind::kFloat:
      return float_repr(float_);
    case Kind::kString:
      return quoted(*text_, "");
    case Kind::kBytes:
      return quoted(*text_, "b");
    case Kind::kList:
    case Kind::kTuple: {
      const bool is_list = kind_ == Kind::kList;
      std::string out = is_list ? "[" : "(";
      for (std::size_t i = 0; i < items_->size(); ++i) {
        if (i > 0) out += ", ";
        out += (*items_)[i].repr();
      }
      if (!is_list && items_->size() == 1) out += ",";
      return out + (is_list ? "]" : ")");
    }
    case Kind::kDict: {
      std::string out = "{";
      for (std::size_t i = 0; i < entries_->size(); ++i) {
        if (i > 0) out += ", ";
        out += (*entries_)[i].first.repr() + ": " + (*entries_)[i].second.repr();
      }
      return out + "}";
    }
  }
  return "?";
}

const char* PickleValue::kind_name(Kind kind) {
  switch (kind) {
    case Kind::kNone:
      return "None";
    case Kind::kBool:
      return "bool";
    case Kind::kInt:
      return "int";
    case Kind::kFloat:
      return "float";
    case Kind::kString:
      return "str";
    case Kind::kBytes:
      return "bytes";
    case Kind::kList:
      return "list";
    case Kind::kTuple:
      return "tuple";
    case Kind::kDict:
      return "dict";
  }
  return "?";
}

}  // namespace dls::data

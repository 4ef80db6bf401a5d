#include "dls/util/key_values.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

namespace dls::util {

void KeyValues::set(const std::string& key, const std::string& value) {
  if (key.empty() || key.find_first_of("=\n") != std::string::npos) {
    throw std::invalid_argument("invalid setting name '" + key + "'");
  }
  for (auto& entry : entries_) {
    if (entry.first == key) {
      entry.second = value;
      return;
    }
  }
  entries_.emplace_back(key, value);
}

void KeyValues::set(const std::string& key, std::int64_t value) { set(key, std::to_string(value)); }

void KeyValues::set(const std::string& key, double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.17g", value);
  set(key, std::string(buffer));
}

void KeyValues::set(const std::string& key, bool value) { set(key, std::string(value ? "true" : "false")); }

bool KeyValues::has(const std::string& key) const {
  for (const auto& entry : entries_) {
    if (entry.first == key) return true;
  }
  return false;
}

const std::string& KeyValues::get(const std::string& key) const {
  for (const auto& entry : entries_) {
    if (entry.first == key) return entry.second;
  }
  throw std::runtime_error(source_ + ": missing setting '" + key + "'");
}

std::int64_t KeyValues::get_int(const std::string& key) const {
  const std::string& text = get(key);
  char* end = nullptr;
  errno = 0;
  const long long value = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno != 0) {
    throw std::runtime_error(source_ + ": setting '" + key + "' = '" + text + "' is not an integer");
  }
  return value;
}

double KeyValues::get_double(const std::string& key) const {
  const std::string& text = get(key);
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0') {
    throw std::runtime_error(source_ + ": setting '" + key + "' = '" + text + "' is not a number");
  }
  return value;
}

bool KeyValues::get_bool(const std::string& key) const {
  const std::string& text = get(key);
  if (text == "true") return true;
  if (text == "false") return false;
  throw std::runtime_error(source_ + ": setting '" + key + "' = '" + text + "' is not true or false");
}

void KeyValues::merge(const KeyValues& other, const std::string& prefix) {
  for (const auto& [key, value] : other.entries_) set(prefix.empty() ? key : prefix + "." + key, value);
}

KeyValues KeyValues::section(const std::string& prefix) const {
  KeyValues result;
  result.source_ = source_;
  const std::string lead = prefix + ".";
  for (const auto& [key, value] : entries_) {
    if (key.compare(0, lead.size(), lead) == 0) result.entries_.emplace_back(key.substr(lead.size()), value);
  }
  return result;
}

std::string KeyValues::to_text() const {
  std::string text;
  for (const auto& [key, value] : entries_) {
    text += key;
    text += '=';
    for (const char c : value) {
      if (c == '\\') {
        text += "\\\\";
      } else if (c == '\n') {
        text += "\\n";
      } else {
        text += c;
      }
    }
    text += '\n';
  }
  return text;
}

KeyValues KeyValues::from_text(const std::string& text, const std::string& source) {
  KeyValues result;
  result.source_ = source;
  std::size_t start = 0, line_number = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    ++line_number;
    const std::string line = text.substr(start, end - start);
    start = end + 1;
    if (line.empty()) continue;
    const std::size_t eq = line.find('=');
    if (eq == std::string::npos || eq == 0) {
      throw std::runtime_error(source + ": line " + std::to_string(line_number) + ": expected key=value");
    }
    std::string value;
    for (std::size_t i = eq + 1; i < line.size(); ++i) {
      if (line[i] == '\\' && i + 1 < line.size()) {
        value += line[i + 1] == 'n' ? '\n' : line[i + 1];
        ++i;
      } else {
        value += line[i];
      }
    }
    result.entries_.emplace_back(line.substr(0, eq), value);
  }
  return result;
}

}  // namespace dls::util

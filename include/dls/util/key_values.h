// An ordered set of key = value settings: the configuration that travels inside a
// checkpoint, written as text ("key=value" lines) and read back with typed getters that
// fail with a clear message.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace dls::util {

class KeyValues {
 public:
  void set(const std::string& key, const std::string& value);
  void set(const std::string& key, const char* value) { set(key, std::string(value)); }
  void set(const std::string& key, std::int64_t value);
  void set(const std::string& key, int value) { set(key, static_cast<std::int64_t>(value)); }
  void set(const std::string& key, double value);  // round-trips exactly (%.17g)
  void set(const std::string& key, bool value);

  bool has(const std::string& key) const;
  // Each getter throws std::runtime_error "<source>: missing setting 'key'" or
  // "<source>: setting 'key' = 'x' is not an integer" etc.
  const std::string& get(const std::string& key) const;
  std::int64_t get_int(const std::string& key) const;
  double get_double(const std::string& key) const;
  bool get_bool(const std::string& key) const;

  // Adds every entry of `other` under "prefix.key" ("": under its own key).
  void merge(const KeyValues& other, const std::string& prefix = "");
  // The entries under "prefix." with the prefix removed.
  KeyValues section(const std::string& prefix) const;

  // One "key=value" line per entry; newlines and backslashes in values are escaped.
  std::string to_text() const;
  static KeyValues from_text(const std::string& text, const std::string& source);

  const std::vector<std::pair<std::string, std::string>>& entries() const { return entries_; }
  // Names the file the settings came from in error messages.
  void set_source(const std::string& source) { source_ = source; }
  const std::string& source() const { return source_; }

 private:
  std::vector<std::pair<std::string, std::string>> entries_;
  std::string source_ = "settings";
};

}  // namespace dls::util

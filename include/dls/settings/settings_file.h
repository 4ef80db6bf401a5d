// Settings read from a TOML file by their flags' names (util/declared.h), as the programs'
// --config reads them: a preset (data/presets/, builtin_presets.h) is such a file, and so is a
// run's config.toml. Each `name = value` sets the declared field whose flag is --name, checked
// as the flag checks it (range, values); anything else is refused in one line naming the file
// and the line.
#pragma once

#include <cctype>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "dls/util/declared.h"
#include "dls/util/closest_name.h"
#include "dls/util/file_io.h"
#include "dls/util/toml_subset.h"

namespace dls::settings {

using util::declared_flag_names;
using util::Keep;
using util::Setting;

namespace detail {

// Sets the field whose flag is "--" + item.name from the item's text.
class SettingTextReader {
 public:
  SettingTextReader(const util::TomlItem& item, const std::string& source)
      : item_(item), flag_("--" + item.name), source_(source) {}

  template <typename T>
  void operator()(T& field, const Setting& s) {
    if (matches(s)) field = parsed<T>(s);
  }
  template <typename Get, typename Set>
  void property(const Setting& s, Get get, Set set) {
    if (!matches(s)) return;
    const auto value = parsed<std::decay_t<decltype(get())>>(s);
    try {
      set(value);
    } catch (const std::exception& error) {  // the property's own parse (a malformed --stem)
      fail(error.what());
    }
  }
  template <typename Body>
  void section(const std::string&, Body body) {  // flags have no sections
    body();
  }
  void group(const std::string&) {}

  bool found = false;

 private:
  bool matches(const Setting& s) {
    if (s.flag != flag_ || s.keep == Keep::kInvocation) return false;
    if (item_.is_array || item_.values.size() != 1) fail("expected one value, not an array");
    found = true;
    return true;
  }
  template <typename T>
  T parsed(const Setting& s) const {
    const auto& text = item_.values.front();
    if constexpr (std::is_same_v<T, std::string>) {
      if (s.is_path) return util::absolute_path(text);
      if (s.values.empty()) return text;
      for (const auto& value : s.values) {
        if (value == text || (s.any_case && same_in_any_case(value, text))) return value;
      }
      std::string listed;
      for (const auto& value : s.values) listed += (listed.empty() ? "" : ", ") + value;
      fail("'" + text + "' is not one of " + listed);
    } else {
      const auto value = util::detail::parse_saved<T>(text);
      if (!value) {
        fail("'" + text + "' is not " +
             (std::is_same_v<T, bool>       ? std::string("true or false")
              : std::is_floating_point_v<T> ? std::string("a number")
                                            : std::string("a whole number in range")));
      }
      if (item_.quoted.front()) {  // TOML's string, not its number or boolean
        fail(std::string("\"") + text + "\" is a string; " +
             (std::is_same_v<T, bool> ? "true and false are" : "a number is") + " written without quotes");
      }
      if constexpr (!std::is_same_v<T, bool>) {
        if (static_cast<double>(*value) < s.low || static_cast<double>(*value) > s.high) {
          fail(text + " is not in [" + util::toml_value(s.low) + ", " + util::toml_value(s.high) + "]");
        }
      }
      return *value;
    }
  }
  static bool same_in_any_case(const std::string& a, const std::string& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
      if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) {
        return false;
      }
    }
    return true;
  }
  [[noreturn]] void fail(const std::string& what) const {
    throw std::runtime_error(source_ + ":" + std::to_string(item_.line) + ": " + item_.name + ": " + what);
  }

  const util::TomlItem& item_;
  std::string flag_;
  const std::string& source_;
};

}  // namespace detail

// A name that is no declared setting may be the caller's own (a program flag such as
// vit_train's --dataset): `other(item)` takes it and returns true, or returns false.
using OtherSetting = std::function<bool(const util::TomlItem&)>;

// Sets `settings` from `items` (parse_toml_subset of the file `source` names), in order.
// Throws std::runtime_error "SOURCE:LINE: name: what is wrong" for a name that is no
// setting, a value of the wrong kind or out of its range.
template <typename Settings>
void read_settings_file(const std::vector<util::TomlItem>& items, const std::string& source, Settings& settings,
                        const OtherSetting& other = {}) {
  for (const auto& item : items) {
    detail::SettingTextReader reader(item, source);
    Settings::declare(settings, reader);
    if (!reader.found && !(other && other(item))) {
      const auto near = util::closest_name(item.name, declared_flag_names(settings));
      throw std::runtime_error(source + ":" + std::to_string(item.line) + ": '" + item.name +
                               "' is not a setting of this program (the names are the flags' without --)" +
                               (near.empty() ? "" : "; did you mean '" + near + "'?"));
    }
  }
}

}  // namespace dls::settings

// Each setting declared once, beside its field. A settings struct lists its fields in one
// static `declare(self, fields)`, one line each: the field, its key in a checkpoint, its
// command-line flag (which is also its config.toml key), its help, its valid range or values,
// and what it belongs to (Keep). The rest is derived from that list by visitors:
//   - saved_settings() / read_saved_settings(): the checkpoint's keys, both ways (here);
//   - the flags, config.toml and the resume check (cli/declared_flags.h).
// Adding a setting is a field and its line; the code that uses it is the only other place.
//
//   struct OptimizerSettings {
//     double beta1 = 0.9;
//     template <typename Self, typename Fields>
//     static void declare(Self& s, Fields& f) {
//       f(s.beta1, Setting("beta1", "--beta1", "Adam beta1").range(0, 0.999999));
//     }
//   };
//
// A visitor (`Fields`) offers four calls: f(field, setting) for a field of a plain type
// (bool, integers, double, std::string); f.property(setting, get, set) for a value held some
// other way (an enum read and written as text, a flag that inverts a field): `get()` returns
// it, `set(value)` stores it; f.section("prefix", body) for the keys `body()` declares under
// "prefix."; and f.group("Name"), the --help group of the flags declared after it. Visitors
// that only read take the settings through a const_cast and never call `set`.
//
// A program's own options (translate_server's, checkpoint_eval's) are declared the same way,
// without keys: only their flags are made of them (add_option_flags, cli/declared_flags.h),
// and their fields may also be lists of text (a repeatable flag).
#pragma once

#include <cerrno>
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "dls/util/key_values.h"
#include "dls/util/toml_subset.h"

namespace dls::util {

// What a setting belongs to, and so where it is written and whether a resume may change it.
enum class Keep {
  kRun,         // the run's: in its checkpoints and config.toml; a flag changes it on resume too
  kFixed,       // the run's, fixed by it: in checkpoints and config.toml; a resume refuses the flag
  kRecipe,      // how the run is asked to go (limits, run directory): config.toml, not checkpoints
  kInvocation,  // how this invocation runs (data-parallel backend, ...): a flag only
};

struct Setting {
  std::string key;   // its key in a checkpoint, within its section; "": not in checkpoints
  std::string flag;  // its flag, "--name" (config.toml: "name"); "": no flag
  std::string help;
  Keep keep = Keep::kRun;
  double low = -std::numeric_limits<double>::infinity();  // numbers: what a flag accepts
  double high = std::numeric_limits<double>::infinity();
  std::vector<std::string> values;  // text: the values a flag accepts (empty: any)
  bool any_case = false;            // ... in upper or lower case
  bool is_switch = false;           // bool: a flag without a value, which turns it on
  bool is_path = false;             // text: a file path, recorded absolute
  // A checkpoint written before the key existed: `absent` is the value it meant; with
  // `keeps_default_when_absent` the field keeps the value it had; else the read fails.
  std::optional<std::string> absent;
  bool keeps_default_when_absent = false;
  std::string group;  // --help's group; "": the group the program gives the struct
  // A program of several commands (checkpoint_eval's subcommands), bit i for its command i:
  // the commands whose command line has the flag, and those that require it. A flag without
  // dashes ("RUN") is a positional argument.
  std::uint32_t commands = ~std::uint32_t{0};
  std::uint32_t required_in = 0;

  Setting(std::string key_, std::string flag_, std::string help_)
      : key(std::move(key_)), flag(std::move(flag_)), help(std::move(help_)) {}

  Setting& fixed() { return kept(Keep::kFixed); }
  Setting& recipe() { return kept(Keep::kRecipe); }
  Setting& invocation() { return kept(Keep::kInvocation); }
  Setting& range(double low_, double high_) {
    low = low_, high = high_;
    return *this;
  }
  Setting& one_of(std::vector<std::string> values_) {
    values = std::move(values_);
    return *this;
  }
  Setting& in_any_case() {
    any_case = true;
    return *this;
  }
  Setting& as_switch() {
    is_switch = true;
    return *this;
  }
  Setting& as_path() {
    is_path = true;
    return *this;
  }
  Setting& when_absent(std::string value) {
    absent = std::move(value);
    return *this;
  }
  Setting& default_when_absent() {
    keeps_default_when_absent = true;
    return *this;
  }
  Setting& in_group(std::string name) {
    group = std::move(name);
    return *this;
  }
  Setting& only_in(std::uint32_t commands_) {
    commands = commands_;
    return *this;
  }
  Setting& required(std::uint32_t in_commands = ~std::uint32_t{0}) {
    required_in = in_commands;
    return *this;
  }

 private:
  Setting& kept(Keep how) {
    keep = how;
    return *this;
  }
};

namespace detail {

// A field's value as a checkpoint writes it.
inline std::string saved_text(const std::string& value) { return value; }
inline std::string saved_text(bool value) { return value ? "true" : "false"; }
inline std::string saved_text(double value) {  // as KeyValues writes doubles: exact both ways
  char text[32];
  std::snprintf(text, sizeof text, "%.17g", value);
  return text;
}
template <typename Integer, typename = std::enable_if_t<std::is_integral_v<Integer>>>
std::string saved_text(Integer value) {
  return std::to_string(value);
}

// `text` as the field's type; nullopt when it is not one.
template <typename T>
std::optional<T> parse_saved(const std::string& text) {
  if constexpr (std::is_same_v<T, std::string>) {
    return text;
  } else if constexpr (std::is_same_v<T, bool>) {
    if (text == "true" || text == "false") return text == "true";
    return std::nullopt;
  } else if constexpr (std::is_floating_point_v<T>) {
    char* end = nullptr;
    const double value = std::strtod(text.c_str(), &end);
    if (text.empty() || *end != '\0') return std::nullopt;
    return static_cast<T>(value);
  } else {
    static_assert(std::is_integral_v<T>, "a setting is bool, an integer, a double or text");
    if (text.empty() || (std::is_unsigned_v<T> && text.front() == '-')) return std::nullopt;
    char* end = nullptr;
    errno = 0;
    if constexpr (std::is_unsigned_v<T>) {
      const unsigned long long value = std::strtoull(text.c_str(), &end, 10);
      if (*end != '\0' || errno != 0 || value > std::numeric_limits<T>::max()) return std::nullopt;
      return static_cast<T>(value);
    } else {
      const long long value = std::strtoll(text.c_str(), &end, 10);
      if (*end != '\0' || errno != 0 || value < std::numeric_limits<T>::min() ||
          value > std::numeric_limits<T>::max()) {
        return std::nullopt;
      }
      return static_cast<T>(value);
    }
  }
}

// The key prefix of the sections a visitor is in ("training.schedule.").
class SectionPrefix {
 public:
  template <typename Body>
  void section(const std::string& prefix, Body body) {
    const auto outer = prefix_;
    prefix_ += prefix + ".";
    body();
    prefix_ = outer;
  }
  void group(const std::string&) {}

 protected:
  std::string prefix_;
};

// Writes every field that has a key.
class SavedWriter : public SectionPrefix {
 public:
  explicit SavedWriter(KeyValues& out) : out_(out) {}
  template <typename T>
  void operator()(const T& value, const Setting& s) {
    if (!s.key.empty()) out_.set(prefix_ + s.key, saved_text(value));
  }
  template <typename Get, typename Set>
  void property(const Setting& s, Get get, Set /*set*/) {
    if (!s.key.empty()) out_.set(prefix_ + s.key, saved_text(get()));
  }

 private:
  KeyValues& out_;
};

// Reads every field that has a key; errors name the key and the settings' source.
class SavedReader : public SectionPrefix {
 public:
  explicit SavedReader(const KeyValues& in) : in_(in) {}
  template <typename T>
  void operator()(T& value, const Setting& s) {
    if (const auto text = text_of(s)) value = parsed<T>(*text, s);
  }
  template <typename Get, typename Set>
  void property(const Setting& s, Get get, Set set) {
    using T = std::decay_t<decltype(get())>;
    if (const auto text = text_of(s)) {
      try {
        set(parsed<T>(*text, s));
      } catch (const std::invalid_argument& error) {  // the property's own parse (an unknown name)
        throw std::runtime_error(prefix_ + s.key + ": " + error.what());
      }
    }
  }

 private:
  // The text for `s`: the saved one, else what an older checkpoint without it meant;
  // nullopt: keep the field as it is.
  std::optional<std::string> text_of(const Setting& s) const {
    if (s.key.empty()) return std::nullopt;
    const auto key = prefix_ + s.key;
    if (in_.has(key)) return in_.get(key);
    if (s.absent) return s.absent;
    if (s.keeps_default_when_absent) return std::nullopt;
    return in_.get(key);  // throws "<source>: missing setting 'key'"
  }
  template <typename T>
  T parsed(const std::string& text, const Setting& s) const {
    if (const auto value = parse_saved<T>(text)) return *value;
    const char* kind = std::is_same_v<T, bool>       ? "true or false"
                       : std::is_floating_point_v<T> ? "a number"
                       : std::is_unsigned_v<T>       ? "a whole number >= 0 in range"
                                                     : "an integer in range";
    throw std::runtime_error(in_.source() + ": setting '" + prefix_ + s.key + "' = '" + text + "' is not " + kind);
  }

  const KeyValues& in_;
};

// Lists every field that has a flag and is not the invocation's, as "name value" (the flag's
// name), one line per --help group.
class DescriptionWriter : public SectionPrefix {
 public:
  template <typename T>
  void operator()(const T& value, const Setting& s) {
    add(s, value);
  }
  template <typename Get, typename Set>
  void property(const Setting& s, Get get, Set /*set*/) {
    add(s, get());
  }
  void group(const std::string& name) { group_ = name; }

  std::vector<std::pair<std::string, std::string>> lines;  // group, "name value, ..."

 private:
  // A switch shows as its name when on, as on the command line, and not at all when off;
  // empty text not at all.
  template <typename T>
  void add(const Setting& s, const T& value) {
    if (s.flag.empty() || s.keep == Keep::kInvocation) return;
    std::string text = s.flag.substr(2);
    if constexpr (std::is_same_v<T, bool>) {
      if (s.is_switch && !value) return;
      if (!s.is_switch) text += " " + shown(value);
    } else {
      const auto value_text = shown(value);
      if (value_text.empty()) return;  // text not given (no parallel files, no stem)
      text += " " + value_text;
    }
    const auto& group = s.group.empty() ? group_ : s.group;
    auto line = lines.begin();
    while (line != lines.end() && line->first != group) ++line;
    if (line == lines.end()) line = lines.insert(line, {group, ""});
    line->second += (line->second.empty() ? "" : ", ") + text;
  }

  // Doubles as their shortest text that reads back the same (0.1, not 0.10000000000000001).
  template <typename T>
  static std::string shown(const T& value) {
    if constexpr (std::is_floating_point_v<T>) {
      return toml_value(static_cast<double>(value));
    } else {
      return saved_text(value);
    }
  }

  std::string group_;
};

// The flags' names (without dashes) of every declared field that has one, within the
// sections `within` names ("model.": those of the model section; "": all).
class FlagNames : public SectionPrefix {
 public:
  explicit FlagNames(std::string within = "") : within_(std::move(within)) {}
  template <typename T>
  void operator()(const T&, const Setting& s) {
    add(s);
  }
  template <typename Get, typename Set>
  void property(const Setting& s, Get, Set) {
    add(s);
  }

  std::vector<std::string> names;

 private:
  void add(const Setting& s) {
    if (s.flag.rfind("--", 0) == 0 && prefix_.rfind(within_, 0) == 0) names.push_back(s.flag.substr(2));
  }
  std::string within_;
};

}  // namespace detail

// The names of the flags (and config keys) the settings declare: "heads", "batch-size", ...
// `section` ("model."): those declared within that section alone.
template <typename Settings>
std::vector<std::string> declared_flag_names(const Settings& settings, const std::string& section = "") {
  detail::FlagNames names(section);
  Settings::declare(const_cast<Settings&>(settings), names);  // the visitor only reads
  return names.names;
}

// The settings for a start-up log: "Group: name value, name value, ..." per --help group,
// every field with a flag but the invocation's.
template <typename Settings>
std::vector<std::string> describe_settings(const Settings& settings) {
  detail::DescriptionWriter writer;
  Settings::declare(const_cast<Settings&>(settings), writer);  // the writer only reads
  std::vector<std::string> lines;
  for (const auto& [group, line] : writer.lines) lines.push_back(group + ": " + line);
  return lines;
}

// The settings' keys and values as a checkpoint stores them: every declared field with a key.
template <typename Settings>
KeyValues saved_settings(const Settings& settings) {
  KeyValues out;
  detail::SavedWriter writer(out);
  Settings::declare(const_cast<Settings&>(settings), writer);  // the writer only reads
  return out;
}

// Reads what saved_settings() wrote into `settings` (which holds the defaults for keys an
// older checkpoint lacks, where the declaration allows it). Throws std::runtime_error naming
// a missing or malformed key.
template <typename Settings>
void read_saved_settings(const KeyValues& saved, Settings& settings) {
  detail::SavedReader reader(saved);
  Settings::declare(settings, reader);
}

}  // namespace dls::util

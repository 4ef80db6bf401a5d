// The flags of a settings struct, made from its declaration (util/declared.h): one flag
// per declared field that has one, with its help, --help group, range or values; each given
// flag queues a change of that field (overrides.h); config.toml lists every field that is
// not of the invocation alone; a field the run fixes is refused on resume
// (check_fixed_on_resume, config_file.h). A program's own options (not a run's) are declared
// the same way and bound straight to their fields (add_option_flags).
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>

#include <CLI/CLI.hpp>

#include "dls/cli/overrides.h"
#include "dls/cli/config_file.h"
#include "dls/cli/config_toml.h"
#include "dls/util/declared.h"
#include "dls/util/file_io.h"

namespace dls::cli {

namespace detail {

// `value` as the flag stores it: a path made absolute.
template <typename T>
T stored(const util::Setting& s, T value) {
  if constexpr (std::is_same_v<T, std::string>) {
    if (s.is_path) return util::absolute_path(value);
  }
  return value;
}

// Flags have no sections: a visitor of flags walks into every one.
class EverySection {
 public:
  template <typename Body>
  void section(const std::string&, Body body) {
    body();
  }
  void group(const std::string&) {}
};

// Sets the field whose flag is `flag` to `value`.
template <typename T>
class FlagSetter : public EverySection {
 public:
  FlagSetter(const std::string& flag, const T& value) : flag_(flag), value_(value) {}
  template <typename U>
  void operator()(U& field, const util::Setting& s) {
    if constexpr (std::is_same_v<U, T>) {
      if (s.flag == flag_) field = stored(s, value_);
    }
  }
  template <typename Get, typename Set>
  void property(const util::Setting& s, Get get, Set set) {
    if constexpr (std::is_same_v<std::decay_t<decltype(get())>, T>) {
      if (s.flag == flag_) set(stored(s, value_));
    }
  }

 private:
  const std::string& flag_;
  const T& value_;
};

// The TOML value of the field whose flag is `flag`.
class FlagReader : public EverySection {
 public:
  explicit FlagReader(const std::string& flag) : flag_(flag) {}
  template <typename U>
  void operator()(const U& field, const util::Setting& s) {
    if (s.flag == flag_) toml = toml_value(stored(s, field));
  }
  template <typename Get, typename Set>
  void property(const util::Setting& s, Get get, Set) {
    if (s.flag == flag_) toml = toml_value(stored(s, get()));
  }

  std::string toml;

 private:
  const std::string& flag_;
};

// Adds a flag for each declared field that has one.
template <typename Settings>
class FlagAdder : public EverySection {
 public:
  FlagAdder(CLI::App& app, Overrides<Settings>& overrides, std::string group)
      : app_(app), overrides_(overrides), group_(std::move(group)) {}
  template <typename T>
  void operator()(T&, const util::Setting& s) {
    add<T>(s);
  }
  template <typename Get, typename Set>
  void property(const util::Setting& s, Get get, Set) {
    add<std::decay_t<decltype(get())>>(s);
  }
  // The --help group of the flags declared next.
  void group(const std::string& name) { group_ = name; }

 private:
  template <typename T>
  void add(const util::Setting& s) {
    if (s.flag.empty()) return;
    auto& overrides = overrides_;
    const std::string flag = s.flag;
    CLI::Option* option = nullptr;
    if constexpr (std::is_same_v<T, bool>) {
      if (s.is_switch) {
        option = app_.add_flag_callback(
            flag, [&overrides, flag] { overrides.push_back([flag](Settings& x) { set_flag<bool>(x, flag, true); }); },
            s.help);
      }
    }
    if (option == nullptr) {
      option = app_.add_option_function<T>(
          flag,
          [&overrides, flag](const T& value) {
            overrides.push_back([flag, value](Settings& x) { set_flag<T>(x, flag, value); });
          },
          s.help);
    }
    if (std::isfinite(s.low) || std::isfinite(s.high)) option->check(in_range(s.low, s.high));
    if (!s.values.empty()) {
      option->check(s.any_case ? CLI::IsMember(s.values, CLI::ignore_case) : CLI::IsMember(s.values));
    }
    option->group(s.group.empty() ? group_ : s.group);
    if (s.keep != util::Keep::kInvocation) {
      overrides.recorded.push_back({flag, [flag](const Settings& x) { return flag_toml(x, flag); }});
    }
    if (s.keep == util::Keep::kFixed) overrides.fixed.push_back(flag);
  }
  template <typename T>
  static void set_flag(Settings& settings, const std::string& flag, const T& value) {
    FlagSetter<T> setter(flag, value);
    Settings::declare(settings, setter);
  }
  static std::string flag_toml(const Settings& settings, const std::string& flag) {
    FlagReader reader(flag);
    Settings::declare(const_cast<Settings&>(settings), reader);  // the reader only reads
    return reader.toml;
  }

  CLI::App& app_;
  Overrides<Settings>& overrides_;
  std::string group_;
};

// Adds a flag for each declared field that has one and that `command` takes, writing straight
// into the field; its default is shown where it is a value the flag accepts.
class OptionBinder : public EverySection {
 public:
  OptionBinder(CLI::App& app, std::uint32_t command, std::string group)
      : app_(app), command_(command), group_(std::move(group)) {}
  template <typename T>
  void operator()(T& field, const util::Setting& s) {
    if (s.flag.empty() || (s.commands & command_) == 0) return;
    CLI::Option* option = nullptr;
    if constexpr (std::is_same_v<T, bool>) {
      option = app_.add_flag(s.flag, field, s.help);
    } else {
      option = app_.add_option(s.flag, field, s.help);
      if (shows_default(field, s)) option->capture_default_str();
    }
    if (std::isfinite(s.low) || std::isfinite(s.high)) option->check(in_range(s.low, s.high));
    if (!s.values.empty()) {
      option->check(s.any_case ? CLI::IsMember(s.values, CLI::ignore_case) : CLI::IsMember(s.values));
    }
    if ((s.required_in & command_) != 0) option->required();
    if (s.flag.rfind("-", 0) == 0) option->group(s.group.empty() ? group_ : s.group);  // positionals: their own
  }
  void group(const std::string& name) { group_ = name; }

 private:
  template <typename T>
  static bool shows_default(const T& value, const util::Setting& s) {
    if constexpr (std::is_same_v<T, std::string>) {
      return !value.empty();
    } else if constexpr (std::is_arithmetic_v<T>) {
      return static_cast<double>(value) >= s.low && static_cast<double>(value) <= s.high;
    } else {
      return false;  // lists
    }
  }

  CLI::App& app_;
  std::uint32_t command_;
  std::string group_;
};

}  // namespace detail

// The flags of a program's options `Options::declare` lists, in its order, that `command`
// (a bit of the program's commands; ~0 for a program of one) takes; `group` until the
// declaration names another.
template <typename Options>
void add_option_flags(CLI::App& app, Options& options, std::uint32_t command, const std::string& group) {
  detail::OptionBinder binder(app, command, group);
  Options::declare(options, binder);
}

// The flags of every field `Settings::declare` lists with one, in the order it lists them, in
// `group` until the declaration names another.
template <typename Settings>
void add_declared_flags(CLI::App& app, Overrides<Settings>& overrides, const std::string& group) {
  detail::FlagAdder<Settings> adder(app, overrides, group);
  Settings probe;  // declare() walks fields; the flags change the program's settings later
  Settings::declare(probe, adder);
}

}  // namespace dls::cli

// --config files and config.toml through the library's TOML subset (util/toml_subset.h)
// rather than CLI11's reader (2.1.2), which cuts a value at the first '#' even inside quotes,
// keeps backslashes and quotes unescaped, splits unquoted values at spaces and accepts an
// unterminated array or string. A malformed file is refused with one line naming the file
// and the line.
#pragma once

#include <istream>
#include <iterator>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "dls/cli/number_options.h"
#include "dls/util/toml_subset.h"

namespace dls::cli {

using util::toml_value;

// The items of a config file; throws CLI::ConfigError "FILE:LINE: what is wrong". `lines`,
// when given, gets each item's line number by name. With `app`, a quoted value of an option
// that takes numbers or is a switch is refused (epochs = "3": TOML's string, not a number).
inline std::vector<CLI::ConfigItem> parse_config_toml(std::istream& in, const std::string& file,
                                                      std::map<std::string, int>* lines = nullptr,
                                                      const CLI::App* app = nullptr) {
  std::vector<CLI::ConfigItem> items;
  try {
    for (auto& read : util::parse_toml_subset(std::string(std::istreambuf_iterator<char>(in), {}), file)) {
      const auto where = file + ":" + std::to_string(read.line) + ": '" + read.name + "'";
      if (lines != nullptr) lines->emplace(read.name, read.line);
      for (const auto& value : read.values) {  // a NUL (\u0000) would end the text an option takes
        if (value.find('\0') != std::string::npos)
          throw util::TomlError(where + " holds a NUL character (\\u0000), which no option takes");
      }
      const auto* option = app == nullptr ? nullptr : app->get_option_no_throw("--" + read.name);
      for (std::size_t i = 0; option != nullptr && i < read.values.size(); ++i) {
        if (read.quoted[i] && takes_numbers_or_switch(*option))
          throw util::TomlError(where + ": \"" + read.values[i] + "\" is a string; " +
                                (is_switch(*option) ? "true and false are" : "a number is") +
                                " written without quotes");
      }
      CLI::ConfigItem item;
      item.name = std::move(read.name);
      item.inputs = std::move(read.values);
      items.push_back(std::move(item));
    }
  } catch (const util::TomlError& error) {
    throw CLI::ConfigError(error.what());
  }
  return items;
}

// "--config FILE", naming the file `app` read its options from.
inline std::string config_label(const CLI::App& app) {
  const auto* config = app.get_config_ptr();
  return config != nullptr && !config->results().empty() ? "--config " + config->results().back() : "--config";
}

// CLI11's reader replaced by parse_config_toml. It also notes which options took their value
// from the file: CLI11 reads the file after the command line, so an option still without a
// value then gets the file's (the command line wins).
class ConfigToml : public CLI::ConfigBase {
 public:
  explicit ConfigToml(const CLI::App& app) : app_(app) {}

  std::vector<CLI::ConfigItem> from_config(std::istream& in) const override {
    auto items = parse_config_toml(in, config_label(app_), &lines_, &app_);
    for (const auto& item : items) {
      const auto* option = app_.get_option_no_throw("--" + item.name);
      if (option == nullptr || option->count() == 0) from_file_.insert(item.name);
    }
    return items;
  }

  // Whether option `name` (without dashes) took its value from the file.
  bool gave(const std::string& name) const { return from_file_.count(name) > 0; }
  // The line of the file that gave key `name`; 0 when none did.
  int line_of(const std::string& name) const {
    const auto found = lines_.find(name);
    return found == lines_.end() ? 0 : found->second;
  }

 private:
  const CLI::App& app_;
  mutable std::set<std::string> from_file_;
  mutable std::map<std::string, int> lines_;
};

// "--config FILE:LINE" of the file's key `name` (without dashes) wherever the file has it,
// whether or not its value was taken; "--config FILE" when it has no line.
inline std::string config_key_location(const CLI::App& app, const std::string& name) {
  const auto toml = std::dynamic_pointer_cast<ConfigToml>(app.get_config_formatter());
  const int line = toml == nullptr ? 0 : toml->line_of(name);
  return config_label(app) + (line == 0 ? "" : ":" + std::to_string(line));
}

// "--config FILE:LINE" of the file's key `name` (without dashes); "" when the value is not
// the file's (none there, or the command line's won).
inline std::string config_location(const CLI::App& app, const std::string& name) {
  const auto toml = std::dynamic_pointer_cast<ConfigToml>(app.get_config_formatter());
  if (toml == nullptr || !toml->gave(name) || toml->line_of(name) == 0) return "";
  return config_label(app) + ":" + std::to_string(toml->line_of(name));
}

}  // namespace dls::cli

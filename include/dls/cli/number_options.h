// Numbers on the command line and in --config files are decimal. CLI11 (2.1.2) converts an
// integer with strtoll's base 0, so '--epochs 010' trained 8 epochs and '--port 0x1F90' served
// on 8080; a quoted value in a config file ('epochs = "3"') was taken as the number, where TOML
// gives it another type. Both are refused with one line naming the flag or the file's line.
#pragma once

#include <cctype>
#include <string>

#include <CLI/CLI.hpp>

namespace dls::cli {

// Why `text` is not a decimal number as written ("" when it is, or when it is no number at
// all: the conversion says so then): a leading zero (010, read as octal) or a base prefix
// (0x10, 0b1, 0o17).
inline std::string not_decimal(const std::string& text) {
  const auto first = text.find_first_not_of("+- ");
  if (first == std::string::npos || first + 1 >= text.size() || text[first] != '0') return "";
  const char next = static_cast<char>(std::tolower(static_cast<unsigned char>(text[first + 1])));
  if (std::isdigit(static_cast<unsigned char>(next)))
    return "'" + text + "' has a leading zero (it would be read as octal): write it without";
  if (next == 'x' || next == 'b' || next == 'o') return "'" + text + "': write the number in decimal";
  return "";
}

// Whether `option` is a switch (--json: no value on the command line; true or false in a file).
inline bool is_switch(const CLI::Option& option) { return option.get_expected_min() == 0; }

// Whether `option` takes a number (or a list of them) or is a switch: the options a quoted
// value in a config file is refused for.
inline bool takes_numbers_or_switch(const CLI::Option& option) {
  if (is_switch(option)) return true;
  const std::string type = option.get_type_name();
  for (const char* kind : {"INT", "UINT", "FLOAT", "BOOLEAN"}) {
    if (type.rfind(kind, 0) == 0) return true;
  }
  return false;
}

// Refuses non-decimal spellings on every numeric option of `app` and its subcommands,
// whether declared with a range or not. Called once, before parsing.
inline void require_decimal_numbers(CLI::App& app) {
  for (auto* option : app.get_options()) {
    if (is_switch(*option) || !takes_numbers_or_switch(*option)) continue;
    option->check(CLI::Validator(not_decimal, "", "decimal"));
  }
  for (auto* subcommand : app.get_subcommands([](CLI::App*) { return true; })) require_decimal_numbers(*subcommand);
}

}  // namespace dls::cli

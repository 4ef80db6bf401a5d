// How every program reads its command line: CLI11's parser, with --version, and a usage
// error (unknown option, bad value, unknown key in a --config file) as one line
// "error: ..." with a "did you mean" for a misspelt name, and exit status 1, as each
// program's --help says.
#pragma once

#include <csignal>
#include <cstdio>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <torch/version.h>

#include "dls/cli/config_toml.h"
#include "dls/cli/number_options.h"
#include "dls/util/closest_name.h"

#ifndef DLS_VERSION
#define DLS_VERSION "unknown"
#endif

namespace dls::cli {

// --version: "<program> (dlstudio-cpp) <version>, LibTorch <version>".
inline void add_version_flag(CLI::App& app, const std::string& program) {
  app.set_version_flag("--version", program + " (dlstudio-cpp) " DLS_VERSION ", LibTorch " TORCH_VERSION);
}

// The long option name of `app` (without dashes) closest to `name`; "" when none is close.
inline std::string closest_option(const CLI::App& app, const std::string& name) {
  std::vector<std::string> names;
  for (const auto* option : app.get_options()) {
    for (const auto& candidate : option->get_lnames()) names.push_back(candidate);
  }
  return util::closest_name(name, names);
}

// The one line for a usage error, naming the closest option or key where one was misspelt.
inline std::string usage_error_line(const CLI::App& app, const CLI::Error& error) {
  std::string message = error.what();
  message = message.substr(0, message.find('\n'));
  const std::string config_prefix = "INI was not able to parse ";
  if (message.rfind(config_prefix, 0) == 0) {  // a --config file's unknown key
    const std::string key = message.substr(config_prefix.size());
    const auto near = closest_option(app, key);
    const auto where = config_location(app, key);
    return (where.empty() ? "--config" : where) + ": unknown key '" + key + "'" +
           (near.empty() ? "" : "; did you mean '" + near + "'?");
  }
  // A key the file may not set (--config, --resume, --overwrite, --dry-run: what one
  // invocation does, not a run's settings).
  const std::string not_allowed = ": This option is not allowed in a configuration file";
  if (message.find(not_allowed) != std::string::npos) {
    const auto key = message.substr(0, message.find(not_allowed));
    return config_key_location(app, key) + ": '" + key +
           "' cannot come from a config file (it is one invocation's, not a setting); give --" + key +
           " on the command line";
  }
  // A value the --config file gave: the file and line first ("--batch-size: 'sixty' is not a
  // number" named a flag the command line never had).
  const auto dashes = message.find("--");
  if (dashes != std::string::npos && dynamic_cast<const CLI::ExtrasError*>(&error) == nullptr) {
    const auto end = message.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-", dashes + 2);
    const auto name = message.substr(dashes + 2, end == std::string::npos ? std::string::npos : end - dashes - 2);
    const auto where = config_location(app, name);
    if (!where.empty()) return where + ": " + message + " (see --help)";
  }
  if (dynamic_cast<const CLI::ExtrasError*>(&error) != nullptr) {  // "... not expected: A B"
    std::istringstream words(message.substr(message.find(": ") + 2));
    std::string unknown, suggestions;
    for (std::string word; words >> word;) {
      if (word.rfind("-", 0) != 0) continue;  // a value of the unknown option, or a stray word
      unknown += (unknown.empty() ? "" : " ") + word;
      const auto name = word.substr(word.find_first_not_of('-'));
      const auto near = closest_option(app, name.substr(0, name.find('=')));
      if (!near.empty()) suggestions += (suggestions.empty() ? "" : ", ") + word + " -> --" + near;
    }
    if (unknown.empty()) return "unexpected argument(s) " + message.substr(message.find(": ") + 2) + " (see --help)";
    return "unknown option " + unknown + (suggestions.empty() ? "" : " (did you mean: " + suggestions + "?)") +
           "; --help lists the options";
  }
  return message + " (see --help)";
}

// Parses the command line. Returns the exit status when the program is to stop here:
// 0 after --help or --version, 1 after a usage error (one line on stderr); nullopt to go on.
// Every program's first step, so it also makes a file size limit (ulimit -f) a write error
// like a full disk: with SIGXFSZ ignored the write fails (EFBIG), and the program says so and
// removes what it began, where the signal killed it with its temporary files left behind.
inline std::optional<int> parse_command_line(CLI::App& app, int argc, char** argv) {
  std::signal(SIGXFSZ, SIG_IGN);
  // "--stem=" with nothing after '=': CLI11 would take the next argument as the value.
  for (int i = 1; i < argc && std::string(argv[i]) != "--"; ++i) {
    const std::string arg = argv[i];
    if (arg.size() > 3 && arg.rfind("--", 0) == 0 && arg.find('=') == arg.size() - 1) {
      const auto name = arg.substr(0, arg.size() - 1);
      std::fprintf(stderr, "error: %s has no value after '=': give %s VALUE, or %s \"\" for an empty one\n",
                   arg.c_str(), name.c_str(), name.c_str());
      return 1;
    }
  }
  require_decimal_numbers(app);
  try {
    app.parse(argc, argv);
    return std::nullopt;
  } catch (const CLI::Success& done) {  // --help, --version
    return app.exit(done);
  } catch (const CLI::Error& error) {
    std::fprintf(stderr, "error: %s\n", usage_error_line(app, error).c_str());
    return 1;
  }
}

}  // namespace dls::cli

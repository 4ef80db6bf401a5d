// How every program reads its command line: CLI11's parser, with --version, and a usage
// error (unknown option, bad value, unknown key in a --config file) as one line
// "error: ..." with a "did you mean" for a misspelt name, and exit status 1, as each
// program's --help says.
#pragma once

#include <algorithm>
#include <cstdio>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <torch/version.h>

#ifndef DLS_VERSION
#define DLS_VERSION "unknown"
#endif

namespace dls::apps {

// --version: "<program> (dlstudio-cpp) <version>, LibTorch <version>".
inline void add_version_flag(CLI::App& app, const std::string& program) {
  app.set_version_flag("--version", program + " (dlstudio-cpp) " DLS_VERSION ", LibTorch " TORCH_VERSION);
}

// Edits (insert, delete, replace one character) that turn a into b.
inline std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

// The long option names of `app` (without dashes) closest to `name`: within a third of its
// length in edits (at least 2), or those it is a prefix of. "" when none is close.
inline std::string closest_option(const CLI::App& app, const std::string& name) {
  std::string best;
  std::size_t best_distance = std::max<std::size_t>(2, name.size() / 3) + 1;
  for (const auto* option : app.get_options()) {
    for (const auto& candidate : option->get_lnames()) {
      const std::size_t distance =
          candidate.rfind(name, 0) == 0 && name.size() >= 3 ? 1 : edit_distance(name, candidate);
      if (distance < best_distance) best = candidate, best_distance = distance;
    }
  }
  return best;
}

// The one line for a usage error, naming the closest option or key where one was misspelt.
inline std::string usage_error_line(const CLI::App& app, const CLI::Error& error) {
  std::string message = error.what();
  message = message.substr(0, message.find('\n'));
  const std::string config_prefix = "INI was not able to parse ";
  if (message.rfind(config_prefix, 0) == 0) {  // a --config file's unknown key
    const std::string key = message.substr(config_prefix.size());
    const auto near = closest_option(app, key);
    return "--config: unknown key '" + key + "'" + (near.empty() ? "" : "; did you mean '" + near + "'?");
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
inline std::optional<int> parse_command_line(CLI::App& app, int argc, char** argv) {
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

}  // namespace dls::apps

// The presets shipped with the programs: data/presets/TASK/NAME.toml, compiled into the
// library when it is built, so that a program or a test needs no file at run time. A preset
// is a settings file (settings_file.h) and reads as one; a user's own preset is any such
// file, given to a program with --config (which also reads data/presets/ files as they are).
//
// NAME.VARIANT.toml (e.g. seq2seq/dlstudio.PreLN.toml) holds what changes when the preset
// runs with that --variant; it is read after NAME.toml.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "dls/settings/settings_file.h"
#include "dls/util/toml_subset.h"

namespace dls::settings {

// The text of data/presets/TASK/NAME.toml; nullptr when there is none.
const std::string* builtin_preset_text(const std::string& task, const std::string& name);
// The presets of `task` a user may name, in order (not the NAME.VARIANT files).
std::vector<std::string> builtin_preset_names(const std::string& task);
// "data/presets/TASK/NAME.toml": the file a preset came from, for errors.
std::string builtin_preset_source(const std::string& task, const std::string& name);

// Reads preset NAME of `task` into `settings`. Throws std::invalid_argument for an unknown
// name (listing the known ones); std::runtime_error for a file that does not read.
template <typename Settings>
void read_builtin_preset(const std::string& task, const std::string& name, Settings& settings,
                         const OtherSetting& other = {}) {
  const auto* text = name.find('.') == std::string::npos ? builtin_preset_text(task, name) : nullptr;
  if (text == nullptr) {
    std::string known;
    for (const auto& each : builtin_preset_names(task)) known += (known.empty() ? "" : " or ") + each;
    throw std::invalid_argument("unknown preset '" + name + "' (expected " + known + ")");
  }
  const auto source = builtin_preset_source(task, name);
  read_settings_file(util::parse_toml_subset(*text, source), source, settings, other);
}

// Reads NAME.VARIANT of `task` into `settings` where there is one.
template <typename Settings>
void read_builtin_preset_variant(const std::string& task, const std::string& name, const std::string& variant,
                                 Settings& settings) {
  const auto file = name + "." + variant;
  if (const auto* text = builtin_preset_text(task, file)) {
    const auto source = builtin_preset_source(task, file);
    read_settings_file(util::parse_toml_subset(*text, source), source, settings);
  }
}

}  // namespace dls::settings

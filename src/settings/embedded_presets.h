// The table of data/presets files that cmake/embed_presets.cmake writes into the build tree
// (builtin_preset_files.cpp) and settings/builtin_presets.cpp reads: one entry per
// data/presets/TASK/NAME.toml, sorted by task and name, then an entry of nullptrs.
#pragma once

#include <cstddef>

namespace dls::settings::embedded {

struct PresetFile {
  const char* task;
  const char* name;
  const char* text;
};
extern const PresetFile kPresetFiles[];
extern const std::size_t kPresetFileCount;

}  // namespace dls::settings::embedded

// The keys of a checkpoint's settings (or a section of them), sorted: what the settings
// tests pin so that a checkpoint keeps the keys earlier ones had.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "dls/util/key_values.h"

namespace dls::test {

inline std::vector<std::string> sorted_keys(const util::KeyValues& settings) {
  std::vector<std::string> names;
  for (const auto& [key, value] : settings.entries()) names.push_back(key);
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace dls::test

// "Did you mean": the known name closest to a misspelt one, for the one-line errors of an
// unknown flag, an unknown --config key and an unknown name in a preset file.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace dls::util {

// Edits (insert, delete, replace one character) that turn a into b.
std::size_t edit_distance(const std::string& a, const std::string& b);

// The candidate closest to `name`: within a third of its length in edits (at least 2), or one
// it is a prefix of (3 characters or more). "" when none is close.
std::string closest_name(const std::string& name, const std::vector<std::string>& candidates);

}  // namespace dls::util

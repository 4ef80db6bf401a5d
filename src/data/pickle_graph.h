// Checks on the containers built while unpickling: the memo lets a pickle put a list
// inside itself, or nest containers arbitrarily deep; both are refused.
#pragma once

#include <string>
#include <vector>

#include "dls/data/pickle.h"

namespace dls::data::detail {

// "" when no container reaches itself and none nests deeper than kMaxPickleDepth;
// otherwise what is wrong, in a few words. Linear in the number of containers and items.
std::string check_container_graph(const std::vector<PickleValue>& containers);

}  // namespace dls::data::detail

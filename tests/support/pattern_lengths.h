// Sentence lengths for the batching tests: many, varied, and the same in every run.
#pragma once

#include <cstdint>
#include <vector>

namespace dls::testing {

// n lengths 3 .. 2 + spread, from a fixed pattern (i * 7919 mod spread: every length, mixed).
inline std::vector<std::int64_t> pattern_lengths(std::int64_t n, std::int64_t spread) {
  std::vector<std::int64_t> out;
  for (std::int64_t i = 0; i < n; ++i) out.push_back(3 + (i * 7919) % spread);
  return out;
}

}  // namespace dls::testing

// A 64-bit FNV-1a digest: the same bytes give the same value on every machine and in every
// run, which is what telling data apart needs (a corpus's fingerprint in its saved split,
// ranks comparing the data they read). Not a cryptographic hash.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace dls::util {

inline constexpr std::uint64_t kDigestStart = 14695981039346656037ULL;  // FNV's offset basis

// `hash` carried on over `size` bytes from `data`.
inline std::uint64_t digest(std::uint64_t hash, const void* data, std::size_t size) {
  const auto* bytes = static_cast<const unsigned char*>(data);
  for (std::size_t i = 0; i < size; ++i) hash = (hash ^ bytes[i]) * 1099511628211ULL;
  return hash;
}

inline std::uint64_t digest(std::uint64_t hash, std::string_view text) {
  return digest(hash, text.data(), text.size());
}

}  // namespace dls::util

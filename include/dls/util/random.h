// A small, portable random number generator with results fixed by this code alone.
// std::shuffle and std::uniform_int_distribution are implementation-defined (libstdc++
// and libc++ give different sequences), so data order and augmentation would change with
// the standard library; everything that must be reproducible from a seed draws from here.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace dls::util {

// SplitMix64 finaliser: a bijective mix of 64 bits (Steele, Lea & Flood 2014).
std::uint64_t mix64(std::uint64_t x);

// Independent seed for stream (a, b) of `seed`, e.g. (epoch, image index): lets every
// image draw its own augmentation, whatever order or thread it is processed in.
std::uint64_t derive_seed(std::uint64_t seed, std::uint64_t a, std::uint64_t b = 0);

// SplitMix64 generator: 64-bit state, period 2^64, passes BigCrush; plenty for shuffling
// and augmentation draws.
class Rng {
 public:
  explicit Rng(std::uint64_t seed) : state_(seed) {}

  std::uint64_t next_u64();

  // Uniform integer in [0, bound), bound > 0, without modulo bias (rejection sampling).
  std::uint64_t below(std::uint64_t bound);

  // Uniform double in [0, 1) from the top 53 bits.
  double uniform();

 private:
  std::uint64_t state_;
};

// Fisher–Yates shuffle of `values` in place: for i = n-1 … 1, swap values[i] with
// values[below(i + 1)].
template <typename T>
void shuffle(std::vector<T>& values, Rng& rng) {
  for (std::size_t i = values.size(); i > 1; --i) {
    const std::size_t j = static_cast<std::size_t>(rng.below(i));
    std::swap(values[i - 1], values[j]);
  }
}

// 0, 1, …, n-1 in an order drawn from rng.
std::vector<std::size_t> random_permutation(std::size_t n, Rng& rng);

}  // namespace dls::util

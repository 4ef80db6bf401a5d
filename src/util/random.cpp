#include "dls/util/random.h"

#include <numeric>

namespace dls::util {

namespace {
constexpr std::uint64_t kGolden = 0x9e3779b97f4a7c15ULL;  // SplitMix64's increment
}  // namespace

std::uint64_t mix64(std::uint64_t x) {
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

std::uint64_t derive_seed(std::uint64_t seed, std::uint64_t a, std::uint64_t b) {
  // Each step mixes a new word into an already mixed state, so (a, b) and (b, a) differ.
  std::uint64_t x = mix64(seed + kGolden);
  x = mix64(x ^ (a + kGolden));
  return mix64(x ^ (b + 2 * kGolden));
}

std::uint64_t Rng::next_u64() {
  state_ += kGolden;
  return mix64(state_);
}

std::uint64_t Rng::below(std::uint64_t bound) {
  // Values under `threshold` = 2^64 mod bound would make small results more likely.
  const std::uint64_t threshold = (0 - bound) % bound;
  while (true) {
    const std::uint64_t r = next_u64();
    if (r >= threshold) return r % bound;
  }
}

double Rng::uniform() { return static_cast<double>(next_u64() >> 11) * 0x1.0p-53; }

std::vector<std::size_t> random_permutation(std::size_t n, Rng& rng) {
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), std::size_t{0});
  shuffle(order, rng);
  return order;
}

}  // namespace dls::util

#include "dls/layers/chunk_random.h"

#include <mutex>

#include <ATen/CPUGeneratorImpl.h>
#include <torch/torch.h>

namespace dls {

namespace {

// The chunk stream of this thread, when a scope is active.
thread_local bool t_active = false;
thread_local std::uint64_t t_key = 0;    // the (step seed, chunk) key
thread_local std::uint64_t t_count = 0;  // draws made in the scope

// SplitMix64's finaliser: a bijection that spreads every input bit over the output.
std::uint64_t mix(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

std::uint64_t chunk_draw() { return mix(t_key + mix(++t_count)); }

}  // namespace

std::uint64_t default_generator_draw() {
  auto generator = at::detail::getDefaultCPUGenerator();
  std::lock_guard<std::mutex> lock(generator.mutex());
  return at::check_generator<at::CPUGeneratorImpl>(generator)->random64();
}

ChunkRandomScope::ChunkRandomScope(std::uint64_t step_seed, int chunk)
    : previous_key_(t_key), previous_count_(t_count), previous_active_(t_active) {
  t_key = mix(step_seed ^ mix(static_cast<std::uint64_t>(chunk) + 1));
  t_count = 0;
  t_active = true;
}

ChunkRandomScope::~ChunkRandomScope() {
  t_key = previous_key_;
  t_count = previous_count_;
  t_active = previous_active_;
}

std::uint64_t draw_seed() { return t_active ? chunk_draw() : default_generator_draw(); }

double draw_uniform() {
  if (!t_active) return torch::rand({1}).item<double>();
  return static_cast<double>(chunk_draw() >> 11) * 0x1.0p-53;  // 53 random bits
}

}  // namespace dls

// What the hand-written float kernels of src/layers share (private to src/layers): how they
// are compiled for the machine, and the dot product both attention_step.cpp and
// small_batched_matmul.cpp take.
#pragma once

#include <cstdint>

// Compiled twice, for AVX2+FMA machines and for any x86-64, chosen when the program loads;
// elsewhere once, for the target.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define DLS_FLOAT_KERNEL_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#define DLS_ALWAYS_INLINE __attribute__((always_inline))
#else
#define DLS_FLOAT_KERNEL_CLONES
#define DLS_ALWAYS_INLINE
#endif

namespace dls::detail {

// a [k] . b [k] in 8 independent partial sums, so that it vectorises without reassociating a
// single sum; always the same order of additions, so every caller gets the same bits. Inlined
// into each clone of its caller, so each clone vectorises it for its own machine.
DLS_ALWAYS_INLINE inline float dot_in_eight_sums(const float* __restrict a, const float* __restrict b, std::int64_t k) {
  float partial[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  std::int64_t p = 0;
  for (; p + 8 <= k; p += 8) {
    for (int l = 0; l < 8; ++l) partial[l] += a[p + l] * b[p + l];
  }
  float sum =
      ((partial[0] + partial[4]) + (partial[1] + partial[5])) + ((partial[2] + partial[6]) + (partial[3] + partial[7]));
  for (; p < k; ++p) sum += a[p] * b[p];
  return sum;
}

}  // namespace dls::detail

// The weight-only int8 matrix-vector product of int8_linear.h: one decoding step of one
// sentence reads every weight once, so its time is the weight's bytes; int8 reads a quarter.
#include <ATen/Parallel.h>
#include <torch/torch.h>

#include "dls/layers/int8_linear.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define DLS_INT8_GEMV_AVX2 1
#endif

namespace dls {

namespace {

// Rows [begin, end) of y = scales * (W8 x) + bias, the plain loop.
void int8_gemv_rows_plain(const std::int8_t* w, const float* scales, const float* x, const float* bias, float* y,
                          std::int64_t in, std::int64_t begin, std::int64_t end) {
  for (std::int64_t o = begin; o < end; ++o) {
    const std::int8_t* row = w + o * in;
    float sum = 0;
    for (std::int64_t i = 0; i < in; ++i) sum += static_cast<float>(row[i]) * x[i];
    y[o] = scales[o] * sum + (bias != nullptr ? bias[o] : 0.0f);
  }
}

#ifdef DLS_INT8_GEMV_AVX2
// The same with AVX2: 16 weights a time widened to two vectors of 8 floats, fused
// multiply-adds into two accumulators per row.
__attribute__((target("avx2,fma"))) void int8_gemv_rows_avx2(const std::int8_t* w, const float* scales, const float* x,
                                                             const float* bias, float* y, std::int64_t in,
                                                             std::int64_t begin, std::int64_t end) {
  const std::int64_t vector_end = in - in % 16;
  for (std::int64_t o = begin; o < end; ++o) {
    const std::int8_t* row = w + o * in;
    __m256 acc0 = _mm256_setzero_ps(), acc1 = _mm256_setzero_ps();
    for (std::int64_t i = 0; i < vector_end; i += 16) {
      const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(row + i));
      const __m256 low = _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(bytes));
      const __m256 high = _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_unpackhi_epi64(bytes, bytes)));
      acc0 = _mm256_fmadd_ps(low, _mm256_loadu_ps(x + i), acc0);
      acc1 = _mm256_fmadd_ps(high, _mm256_loadu_ps(x + i + 8), acc1);
    }
    const __m256 acc = _mm256_add_ps(acc0, acc1);
    __m128 sum4 = _mm_add_ps(_mm256_castps256_ps128(acc), _mm256_extractf128_ps(acc, 1));
    sum4 = _mm_add_ps(sum4, _mm_movehl_ps(sum4, sum4));
    sum4 = _mm_add_ss(sum4, _mm_shuffle_ps(sum4, sum4, 1));
    float sum = _mm_cvtss_f32(sum4);
    for (std::int64_t i = vector_end; i < in; ++i) sum += static_cast<float>(row[i]) * x[i];
    y[o] = scales[o] * sum + (bias != nullptr ? bias[o] : 0.0f);
  }
}

bool cpu_has_avx2_fma() {
  static const bool has = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return has;
}
#endif

}  // namespace

std::string int8_gemv_kernel() {
#ifdef DLS_INT8_GEMV_AVX2
  if (cpu_has_avx2_fma()) return "avx2";
#endif
  return "plain";
}

void int8_gemv(const Int8Weight& weight, const float* x, const float* bias, float* y, bool vectorized) {
  const std::int64_t out = weight.values.size(0), in = weight.values.size(1);
  const auto* w = weight.values.data_ptr<std::int8_t>();
  const auto* scales = weight.scales.data_ptr<float>();
  // At least 64 KB of weights per task: the decoder's small layers stay on one thread.
  const std::int64_t grain = std::max<std::int64_t>(1, (std::int64_t{1} << 16) / std::max<std::int64_t>(in, 1));
  at::parallel_for(0, out, grain, [&](std::int64_t begin, std::int64_t end) {
#ifdef DLS_INT8_GEMV_AVX2
    if (vectorized && cpu_has_avx2_fma()) return int8_gemv_rows_avx2(w, scales, x, bias, y, in, begin, end);
#endif
    int8_gemv_rows_plain(w, scales, x, bias, y, in, begin, end);
  });
}

}  // namespace dls

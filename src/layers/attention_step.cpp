#include "attention_step.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <vector>

#include <ATen/record_function.h>
#include <torch/torch.h>

#include "dls/util/precision.h"
#include "float_kernels.h"

namespace dls::detail {

namespace {

// out [s] = softmax(q . k_j * scale + mask_j over j < n) weighted sum of v_j, with k_j = keys
// + j * key_step and v_j = values + j * value_step (each row of s contiguous floats). The
// dot products as small_batched_matmul's (float_kernels.h); scores [n] is scratch.
DLS_FLOAT_KERNEL_CLONES void attend_row(const float* __restrict q, const float* __restrict keys, std::int64_t key_step,
                                        const float* __restrict values, std::int64_t value_step, const float* mask,
                                        std::int64_t n, std::int64_t s, float scale, float* __restrict scores,
                                        float* __restrict out) {
  float top = -std::numeric_limits<float>::infinity();
  for (std::int64_t j = 0; j < n; ++j) {
    float score = dot_in_eight_sums(q, keys + j * key_step, s) * scale;
    if (mask != nullptr) score += mask[j];
    scores[j] = score;
    top = std::max(top, score);
  }
  float sum = 0;
  for (std::int64_t j = 0; j < n; ++j) {
    scores[j] = std::exp(scores[j] - top);
    sum += scores[j];
  }
  const float inverse = 1.0f / sum;
  for (std::int64_t c = 0; c < s; ++c) out[c] = 0;
  for (std::int64_t j = 0; j < n; ++j) {
    const float pj = scores[j] * inverse;
    const float* vj = values + j * value_step;
    for (std::int64_t c = 0; c < s; ++c) out[c] += pj * vj[c];
  }
}

}  // namespace

}  // namespace dls::detail

namespace dls {

namespace {
std::atomic<bool> g_step_kernels{true};
}  // namespace

void set_attention_step_kernels_enabled(bool enabled) { g_step_kernels = enabled; }
bool attention_step_kernels_enabled() { return g_step_kernels; }

}  // namespace dls

namespace dls::detail {

bool attention_step_applies(const torch::Tensor& x) {
  return g_step_kernels.load(std::memory_order_relaxed) && x.device().is_cpu() && x.scalar_type() == torch::kFloat &&
         !util::autocast_active(x.device()) && !(torch::GradMode::is_enabled() && x.requires_grad());
}

torch::Tensor self_attention_step(const torch::Tensor& qkv, KeyValueCache& cache, std::int64_t position,
                                  std::int64_t heads) {
  RECORD_FUNCTION("dls::self_attention_step", std::vector<c10::IValue>({qkv}));
  const std::int64_t rows = qkv.size(0), dim = qkv.size(1) / 3, s = dim / heads;
  const std::int64_t capacity = cache.keys.size(2);
  TORCH_CHECK(qkv.is_contiguous() && cache.keys.is_contiguous() && cache.values.is_contiguous() &&
                  cache.keys.size(0) == rows && cache.keys.size(1) == heads && cache.keys.size(3) == s &&
                  position < capacity,
              "self_attention_step: unexpected layout");
  auto out = torch::empty({rows, dim}, qkv.options());
  const float* in = qkv.data_ptr<float>();
  float* keys = cache.keys.data_ptr<float>();
  float* values = cache.values.data_ptr<float>();
  float* result = out.data_ptr<float>();
  const float scale = static_cast<float>(1.0 / std::sqrt(static_cast<double>(s)));
  std::vector<float> scores(static_cast<std::size_t>(position + 1));
  for (std::int64_t r = 0; r < rows; ++r) {
    for (std::int64_t h = 0; h < heads; ++h) {
      const float* q = in + r * 3 * dim + h * 3 * s;  // head h's [Q | K | V], s floats each
      float* k = keys + ((r * heads + h) * capacity) * s;
      float* v = values + ((r * heads + h) * capacity) * s;
      std::copy_n(q + s, s, k + position * s);
      std::copy_n(q + 2 * s, s, v + position * s);
      attend_row(q, k, s, v, s, nullptr, position + 1, s, scale, scores.data(), result + r * dim + h * s);
    }
  }
  return out;
}

torch::Tensor cross_attention_step(const torch::Tensor& q, const torch::Tensor& keys, const torch::Tensor& values,
                                   const torch::Tensor& mask, std::int64_t heads) {
  RECORD_FUNCTION("dls::cross_attention_step", std::vector<c10::IValue>({q}));
  const std::int64_t rows = q.size(0), dim = q.size(1), s = dim / heads, length = keys.size(2);
  // The memories as project_memory leaves them (a permuted view of the K/V product) or
  // reordered by beam search: any strides, but each head's row of s floats contiguous.
  TORCH_CHECK(q.is_contiguous() && keys.dim() == 4 && keys.size(0) == rows && keys.sizes() == values.sizes() &&
                  keys.stride(3) == 1 && values.stride(3) == 1 &&
                  (!mask.defined() || (mask.is_contiguous() && mask.numel() == rows * length)),
              "cross_attention_step: unexpected layout");
  auto out = torch::empty({rows, dim}, q.options());
  const float* query = q.data_ptr<float>();
  const float* k = keys.data_ptr<float>();
  const float* v = values.data_ptr<float>();
  const float* m = mask.defined() ? mask.data_ptr<float>() : nullptr;
  float* result = out.data_ptr<float>();
  const float scale = static_cast<float>(1.0 / std::sqrt(static_cast<double>(s)));
  std::vector<float> scores(static_cast<std::size_t>(length));
  for (std::int64_t r = 0; r < rows; ++r) {
    for (std::int64_t h = 0; h < heads; ++h) {
      attend_row(query + r * dim + h * s, k + r * keys.stride(0) + h * keys.stride(1), keys.stride(2),
                 v + r * values.stride(0) + h * values.stride(1), values.stride(2),
                 m == nullptr ? nullptr : m + r * length, length, s, scale, scores.data(), result + r * dim + h * s);
    }
  }
  return out;
}

}  // namespace dls::detail

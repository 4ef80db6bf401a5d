#include "dls/layers/small_batched_matmul.h"

#include <atomic>
#include <vector>

#include <ATen/record_function.h>

#include "dls/util/precision.h"
#include "float_kernels.h"

namespace dls {

namespace {

std::atomic<bool> g_enabled{true};

// c [m, n] (contiguous) = a [m, k] (any strides) x b [k, n] (rows contiguous, row stride
// ldb): each row of c accumulates a[i, p] * row p of b, which vectorises along n.
DLS_FLOAT_KERNEL_CLONES void rows_times_matrix(std::int64_t m, std::int64_t n, std::int64_t k, const float* a,
                                               std::int64_t a_row, std::int64_t a_col, const float* __restrict b,
                                               std::int64_t ldb, float* __restrict c) {
  for (std::int64_t i = 0; i < m; ++i) {
    float* __restrict ci = c + i * n;
    for (std::int64_t j = 0; j < n; ++j) ci[j] = 0;
    for (std::int64_t p = 0; p < k; ++p) {
      const float aip = a[i * a_row + p * a_col];
      const float* __restrict bp = b + p * ldb;
      for (std::int64_t j = 0; j < n; ++j) ci[j] += aip * bp[j];
    }
  }
}

// c [m, n] (contiguous) = a [m, k] x bt [n, k]^T, rows of a and bt contiguous: each entry a
// dot product along k (float_kernels.h).
DLS_FLOAT_KERNEL_CLONES void rows_dot_rows(std::int64_t m, std::int64_t n, std::int64_t k, const float* __restrict a,
                                           std::int64_t lda, const float* __restrict bt, std::int64_t ldbt,
                                           float* __restrict c) {
  for (std::int64_t i = 0; i < m; ++i) {
    const float* ai = a + i * lda;
    for (std::int64_t j = 0; j < n; ++j) c[i * n + j] = detail::dot_in_eight_sums(ai, bt + j * ldbt, k);
  }
}

// Offset of batch item `index` (row-major over the batch dimensions) in a tensor of those
// strides.
std::int64_t batch_offset(std::int64_t index, c10::IntArrayRef batch_sizes, c10::IntArrayRef strides) {
  std::int64_t offset = 0;
  for (auto d = static_cast<std::int64_t>(batch_sizes.size()) - 1; d >= 0; --d) {
    offset += (index % batch_sizes[d]) * strides[d];
    index /= batch_sizes[d];
  }
  return offset;
}

// Which kernel suits a [..., m, k] x b [..., k, n] as laid out, if any. Each one wins over
// torch::matmul's per-matrix BLAS calls only where its vector loop is long enough (k for
// the dot products, n for the row updates, 32 or more) or where there is a single row
// (a decoding step), measured for m, k, n from 1 to 64 (bench/PERFORMANCE.md); elsewhere,
// and for layouts that would need a copy, torch::matmul does the product.
enum class Kernel { kNone, kRowsDotRows, kRowsTimesMatrix };

Kernel kernel_for(const torch::Tensor& a, const torch::Tensor& b) {
  const std::int64_t m = a.size(-2), k = a.size(-1), n = b.size(-1);
  if (m * k * n > kSmallMatmulMaxVolume) return Kernel::kNone;
  constexpr std::int64_t kLongEnough = 32;
  if (b.stride(-1) != 1 && b.stride(-2) == 1 && a.stride(-1) == 1) {
    return k >= kLongEnough || m == 1 ? Kernel::kRowsDotRows : Kernel::kNone;
  }
  if (b.stride(-1) == 1) return n >= kLongEnough || m == 1 ? Kernel::kRowsTimesMatrix : Kernel::kNone;
  return Kernel::kNone;
}

// The product without autograd by `kernel`: a [..., m, k] x b [..., k, n] -> contiguous
// [..., m, n], on the calling thread (the programs already give each thread its own chunk
// of the batch).
torch::Tensor product(const torch::Tensor& a, const torch::Tensor& b, Kernel kernel) {
  // Visible to profilers and to dls_bench's FLOP count under this name.
  RECORD_FUNCTION("dls::small_batched_matmul", std::vector<c10::IValue>({a, b}));
  const auto dims = a.dim();
  const std::int64_t m = a.size(-2), k = a.size(-1), n = b.size(-1);
  const auto batch_sizes = a.sizes().slice(0, dims - 2);
  auto out_sizes = a.sizes().vec();
  out_sizes.back() = n;
  auto c = torch::empty(out_sizes, a.options());
  if (c.numel() == 0) return c;
  if (k == 0) return c.zero_();
  const std::int64_t items = c.numel() / (m * n);
  const auto a_strides = a.strides().slice(0, dims - 2), b_strides = b.strides().slice(0, dims - 2);
  const std::int64_t a_row = a.stride(-2), a_col = a.stride(-1), b_row = b.stride(-2), b_col = b.stride(-1);
  const float* a_data = a.data_ptr<float>();
  const float* b_data = b.data_ptr<float>();
  float* c_data = c.data_ptr<float>();
  for (std::int64_t item = 0; item < items; ++item) {
    const float* ai = a_data + batch_offset(item, batch_sizes, a_strides);
    const float* bi = b_data + batch_offset(item, batch_sizes, b_strides);
    float* ci = c_data + item * m * n;
    if (kernel == Kernel::kRowsDotRows) {
      rows_dot_rows(m, n, k, ai, a_row, bi, b_col, ci);
    } else {
      rows_times_matrix(m, n, k, ai, a_row, a_col, bi, b_row, ci);
    }
  }
  return c;
}

bool operands_qualify(const torch::Tensor& a, const torch::Tensor& b) {
  if (!small_batched_matmul_on(a.device()) || !small_batched_matmul_on(b.device())) return false;
  if (a.dim() < 3 || a.dim() != b.dim()) return false;
  if (a.scalar_type() != torch::kFloat || b.scalar_type() != torch::kFloat) return false;
  // Under bf16 autocast torch::matmul computes in bf16; these float32 kernels would not.
  if (util::autocast_active(a.device())) return false;
  if (a.layout() != torch::kStrided || b.layout() != torch::kStrided) return false;
  if (a.sizes().slice(0, a.dim() - 2) != b.sizes().slice(0, b.dim() - 2)) return false;
  return a.size(-1) == b.size(-2);
}

// How a qualifying product is computed: a b by a kernel as it stands, or as (b^T a^T)^T
// when only the transposed product suits one (Q^T dC in the backward of Q K^T has rows of
// 17 but its transpose dC^T Q rows of s), or not at all (kNone: torch::matmul).
struct Plan {
  Kernel kernel = Kernel::kNone;
  bool transposed = false;
};

Plan plan_for(const torch::Tensor& a, const torch::Tensor& b) {
  if (!operands_qualify(a, b)) return {};
  if (const Kernel direct = kernel_for(a, b); direct != Kernel::kNone) return {direct, false};
  return {kernel_for(b.transpose(-2, -1), a.transpose(-2, -1)), true};
}

torch::Tensor product_by(const Plan& plan, const torch::Tensor& a, const torch::Tensor& b) {
  if (plan.kernel == Kernel::kNone) return torch::matmul(a, b);
  if (!plan.transposed) return product(a, b, plan.kernel);
  return product(b.transpose(-2, -1), a.transpose(-2, -1), plan.kernel).transpose(-2, -1);
}

torch::Tensor product_or_matmul(const torch::Tensor& a, const torch::Tensor& b) {
  return product_by(plan_for(a, b), a, b);
}

// c = a b; dA = dC b^T, dB = a^T dC, each by the kernel that suits it or by torch::matmul.
struct SmallBatchedMatmul : public torch::autograd::Function<SmallBatchedMatmul> {
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& a, const torch::Tensor& b) {
    ctx->save_for_backward({a, b});
    return product_or_matmul(a, b);
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grads) {
    const auto saved = ctx->get_saved_variables();
    const auto& a = saved[0];
    const auto& b = saved[1];
    const auto& grad = grads[0];
    torch::Tensor grad_a, grad_b;
    if (ctx->needs_input_grad(0)) grad_a = product_or_matmul(grad, b.transpose(-2, -1));
    if (ctx->needs_input_grad(1)) grad_b = product_or_matmul(a.transpose(-2, -1), grad);
    return {grad_a, grad_b};
  }
};

}  // namespace

bool small_batched_matmul_applies(const torch::Tensor& a, const torch::Tensor& b) {
  return plan_for(a, b).kernel != Kernel::kNone;
}

torch::Tensor small_batched_matmul(const torch::Tensor& a, const torch::Tensor& b) {
  const Plan plan = plan_for(a, b);
  if (plan.kernel != Kernel::kNone && torch::GradMode::is_enabled() && (a.requires_grad() || b.requires_grad())) {
    return SmallBatchedMatmul::apply(a, b);
  }
  return product_by(plan, a, b);
}

bool small_batched_matmul_on(c10::Device device) {
  return device.is_cpu() && g_enabled.load(std::memory_order_relaxed);
}

void set_small_batched_matmul_enabled(bool enabled) { g_enabled.store(enabled); }

}  // namespace dls

// Batched products of many small matrices (attention's Q K^T and P V), without the
// per-matrix dispatch that makes LibTorch 1.13's CPU bmm cost ~2.5 us per matrix: it
// selects each matrix as a tensor and calls addmm, so 512 products of 17x32x17 (a ViT batch
// of 128 with 4 heads) spend more time in that loop than in arithmetic.
#pragma once

#include <torch/torch.h>

namespace dls {

// a [..., m, k] x b [..., k, n] -> [..., m, n], the same batch dimensions on both sides
// (no broadcasting). Equal to torch::matmul up to float rounding, gradients included.
// Falls back to torch::matmul where the fast kernels do not apply (see
// small_batched_matmul_applies).
torch::Tensor small_batched_matmul(const torch::Tensor& a, const torch::Tensor& b);

// Whether small_batched_matmul uses its own kernels for these operands: both float32 on
// the CPU with autocast off (--precision bf16 leaves the products to torch::matmul, which
// autocast runs in bf16), at least 3 dimensions, equal batch shapes, m*k*n at most kSmallMatmulMaxVolume,
// a layout one of the kernels reads without a copy (rows of b contiguous, or rows of a and
// columns of b), that kernel's vector loop 32 long or more (n, or k) or a single row
// (m = 1, a decoding step), and the kernels enabled; all this for a b itself or for its
// transpose b^T a^T (then computed so and returned transposed). Where the kernels would
// lose to torch::matmul's per-matrix BLAS calls, it is false.
bool small_batched_matmul_applies(const torch::Tensor& a, const torch::Tensor& b);

// 24,576 multiply-adds per matrix (17x64x17 fits): past that, and for the shapes the rules
// above leave out, OpenBLAS's per-matrix call costs little next to the arithmetic and wins
// (measured for m, k, n from 1 to 64: bench/PERFORMANCE.md).
constexpr std::int64_t kSmallMatmulMaxVolume = 24576;

// Whether the kernels may run on `device` at all: the CPU only (and while enabled). On a
// GPU attention's products stay torch::matmul (cuBLAS's batched GEMM has none of the CPU
// bmm's per-matrix dispatch); small_batched_matmul_applies asks this first.
bool small_batched_matmul_on(c10::Device device);

// On by default; off makes small_batched_matmul plain torch::matmul everywhere (dls_bench
// --plain-bmm, and the equivalence tests' reference). Process-wide.
void set_small_batched_matmul_enabled(bool enabled);

}  // namespace dls

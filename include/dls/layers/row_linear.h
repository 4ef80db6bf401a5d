// y = x W^T + b, with one row on the CPU computed as a matrix-vector product.
//
// A decoding step of one sentence sends one row [1, 1, M] through every linear layer.
// LibTorch hands that to BLAS as a GEMM with m = 1, and OpenBLAS's GEMM packs the whole
// weight matrix before multiplying: measured on the 2-core development VM, 3-5x slower than
// GEMV for the decoder's layers (a 20714 x 256 output layer: 2.0 ms against 0.4-0.7 ms).
// Two or more rows keep GEMM, where the packing pays off. With int8 linear layers switched
// on (int8_linear.h), inference products on the CPU run on int8 weights instead.
#pragma once

#include <torch/nn/modules/linear.h>
#include <torch/types.h>

namespace dls {

// x [..., in] with weight [out, in], bias [out] or undefined -> [..., out].
torch::Tensor row_linear(const torch::Tensor& x, const torch::Tensor& weight, const torch::Tensor& bias);
torch::Tensor row_linear(const torch::Tensor& x, const torch::nn::Linear& layer);

// On by default; off: every row count through ATen's linear (the plain path
// that the tests and `dls_bench --plain-linear` compare with).
void set_row_gemv_enabled(bool enabled);
bool row_gemv_enabled();

}  // namespace dls

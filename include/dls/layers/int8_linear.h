// Linear layers with int8 weights, for inference on the CPU (checkpoint_eval and
// translate_server --quantize int8). Each weight [out, in] is kept as int8 with one fp32
// scale per output row (symmetric: scale = max |w_row| / 127), made once, on first use, and
// kept while the weight is unchanged. The checkpoint and the module keep their fp32 weights.
//
// - One row (a decoding step of one sentence): y = scale * (W8 x) + b with x in fp32, a
//   weight-only kernel (AVX2 where the CPU has it). A one-row step is bound by the bytes
//   of weight it reads: int8 reads a quarter of them.
// - Several rows: LibTorch's dynamic int8 linear (quantized::linear_dynamic on the onednn
//   engine, the rows quantized to uint8 per call), whose int8 products beat fp32 GEMM
//   where a batch is large.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include <ATen/core/ivalue.h>
#include <torch/types.h>

namespace dls {

struct Int8Weight {
  torch::Tensor values;  // [out, in] int8, contiguous
  torch::Tensor scales;  // [out] fp32
  c10::IValue packed;    // the onednn engine's prepacked weight (no bias), for several rows
};

// Symmetric per-row quantization of weight [out, in] (fp32): rows of zeros get scale 1.
// `pack`: also prepack it for the onednn engine (needs int8_engine_problem() == "").
Int8Weight quantize_rows(const torch::Tensor& weight, bool pack = true);

// x [..., in] fp32 on the CPU -> [..., out]: one row through the weight-only kernel, more
// through the dynamic int8 linear (or, without `packed`, through the dequantized weight).
torch::Tensor int8_linear(const torch::Tensor& x, const Int8Weight& weight, const torch::Tensor& bias);

// y[o] = scales[o] * sum_i values[o, i] x[i] + bias[o] for rows o of one [in] vector, split
// over the intra-op threads. `vectorized` false: the plain loop the tests compare with.
void int8_gemv(const Int8Weight& weight, const float* x, const float* bias, float* y, bool vectorized = true);
// "avx2" or "plain": what int8_gemv runs on this CPU.
std::string int8_gemv_kernel();

// Why int8 linear layers cannot run in this process ("" when they can): LibTorch without the
// onednn quantized engine.
std::string int8_engine_problem();

// Process-wide, off by default: when on, row_linear (row_linear.h) sends fp32 products on
// the CPU without gradients through int8_linear, quantizing each weight on first use. On
// throws std::runtime_error with int8_engine_problem() where it is not "".
void set_int8_linear_enabled(bool enabled);
bool int8_linear_enabled();

// --quantize for a process (checkpoint_eval, translate_server): "none" does nothing; "int8"
// switches int8 linear layers on, or says in one line why it cannot: `kind` is the
// checkpoint's (only "seq2seq"), `device` must be the CPU, `autocast` whether bf16 or fp16
// autocast was asked for.
void apply_quantize(const std::string& quantize, const std::string& kind, const torch::Device& device, bool autocast);

// What --quantize accepts, and what it means, for the flags of the programs that translate.
inline const std::vector<std::string> kQuantizeNames{"none", "int8"};
inline constexpr const char* kQuantizeHelp =
    "none or int8: a transformer's linear layers on int8 weights, one scale per output row, on the CPU (the "
    "checkpoint stays fp32)";

// The int8 form of `weight` (fp32 [out, in] on the CPU), made on first use and remade when
// the weight changes (its storage, place or version); thread-safe.
std::shared_ptr<const Int8Weight> int8_weight_of(const torch::Tensor& weight);

// What int8_weight_of holds now: matrices, and their bytes as int8 (scales included) and as fp32.
struct Int8WeightStats {
  std::int64_t matrices = 0;
  std::int64_t int8_bytes = 0;
  std::int64_t fp32_bytes = 0;
};
Int8WeightStats int8_weight_stats();

}  // namespace dls

// Mixed precision (--precision): LibTorch's autocast runs the matrix products of a forward
// pass in bf16 or fp16 while the weights, their gradients, the optimizer state and the loss
// stay fp32 (master weights). Autocast is per thread: the training loop and decoding enter
// an AutocastScope on every thread that runs a forward pass (util::for_each_chunk carries
// the caller's state to its threads).
#pragma once

#include <string>
#include <vector>

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>
#include <c10/core/ScalarType.h>

#include "dls/util/enum_names.h"

namespace dls::util {

enum class Precision {
  kFp32,  // no autocast
  kBf16,  // bfloat16 autocast: CPU (fast with AVX512-BF16/AMX) and CUDA
  kFp16,  // float16 autocast with a gradient scaler (train/optim/grad_scaler.h): CUDA only
};

// What --precision means, for the flags of the programs that run a model.
inline constexpr const char* kPrecisionHelp =
    "fp32, bf16 (autocast; fast on CPUs with AVX512-BF16/AMX, and CUDA) or fp16 (CUDA only, with loss scaling); "
    "weights, optimizer state and checkpoints stay fp32";

// What --precision accepts.
inline const EnumNames<Precision> kPrecisionNames("precision", {{Precision::kFp32, "fp32"},
                                                                {Precision::kBf16, "bf16"},
                                                                {Precision::kFp16, "fp16"}});

// "fp32", "bf16", "fp16"; throws std::invalid_argument for anything else.
inline Precision parse_precision(const std::string& name) { return kPrecisionNames.parse(name); }
inline std::string precision_name(Precision precision) { return kPrecisionNames.name(precision); }

// Whether this CPU has bf16 arithmetic that oneDNN uses (avx512_bf16 or amx_bf16 on x86,
// bf16 on ARM, from /proc/cpuinfo). Without it bf16 runs, emulated, slower than fp32.
bool cpu_has_bf16_kernels();

// Checks that `precision` can run on `device`: throws std::invalid_argument for fp16 on the
// CPU (LibTorch 1.13's CPU autocast knows bf16 only, and CPUs lack fp16 matrix kernels);
// logs a warning for bf16 on a CPU without bf16 kernels (it runs, slower than fp32).
void check_precision(Precision precision, const c10::Device& device);

// The autocast settings of one thread, for both device types.
struct AutocastState {
  bool cpu_enabled = false;
  c10::ScalarType cpu_dtype = c10::kBFloat16;
  bool cuda_enabled = false;
  c10::ScalarType cuda_dtype = c10::kHalf;
};

// The state that runs `precision` on `device` (fp32: autocast off everywhere).
AutocastState autocast_for(Precision precision, const c10::Device& device);
// The calling thread's state (to enter on another thread).
AutocastState current_autocast();
// Whether autocast lowers the precision of operations on `device` in this thread.
bool autocast_active(const c10::Device& device);
// The type autocast lowers products to on `device` in this thread (when autocast_active):
// what a custom autograd function, which autocast does not reach inside, casts its inputs to.
c10::ScalarType autocast_dtype(const c10::Device& device);
// `t` cast to autocast_dtype when autocast is active on its device, else `t` itself: a custom
// function's inputs, so that its products run in the type autocast would give them (the
// cast's backward returns the gradient in t's own type, e.g. float32 to the weights).
at::Tensor in_autocast_type(const at::Tensor& t);

// Enters `state` on this thread and restores the previous one on exit. The outermost scope
// clears autocast's cache of lower-precision weight copies when it ends, so that a step
// never reuses the copies of weights the optimizer has changed since.
class AutocastScope {
 public:
  explicit AutocastScope(const AutocastState& state);
  ~AutocastScope();
  AutocastScope(const AutocastScope&) = delete;
  AutocastScope& operator=(const AutocastScope&) = delete;

 private:
  AutocastState saved_;
};

}  // namespace dls::util

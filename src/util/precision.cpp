#include "dls/util/precision.h"

#include <fstream>
#include <sstream>
#include <stdexcept>

#include <ATen/autocast_mode.h>
#include <spdlog/spdlog.h>
#include <torch/version.h>

namespace dls::util {

// LibTorch 2.4 replaced the per-device autocast functions by ones taking the device type
// (the old ones remain, deprecated); 1.13 has only the old ones.
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4)
#define DLS_AUTOCAST_BY_DEVICE_TYPE 1
#endif

namespace {

bool autocast_enabled_on(c10::DeviceType type) {
#ifdef DLS_AUTOCAST_BY_DEVICE_TYPE
  return at::autocast::is_autocast_enabled(type);
#else
  return type == c10::DeviceType::CPU ? at::autocast::is_cpu_enabled() : at::autocast::is_enabled();
#endif
}

void set_autocast_state(const AutocastState& state) {
#ifdef DLS_AUTOCAST_BY_DEVICE_TYPE
  at::autocast::set_autocast_enabled(c10::DeviceType::CPU, state.cpu_enabled);
  at::autocast::set_autocast_dtype(c10::DeviceType::CPU, state.cpu_dtype);
  at::autocast::set_autocast_enabled(c10::DeviceType::CUDA, state.cuda_enabled);
  at::autocast::set_autocast_dtype(c10::DeviceType::CUDA, state.cuda_dtype);
#else
  at::autocast::set_cpu_enabled(state.cpu_enabled);
  at::autocast::set_autocast_cpu_dtype(state.cpu_dtype);
  at::autocast::set_enabled(state.cuda_enabled);
  at::autocast::set_autocast_gpu_dtype(state.cuda_dtype);
#endif
}

}  // namespace

bool cpu_has_bf16_kernels() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    // x86 lists its features as "flags : ...", ARM as "Features : ...".
    if (line.rfind("flags", 0) != 0 && line.rfind("Features", 0) != 0) continue;
    std::istringstream words(line);
    std::string word;
    while (words >> word) {
      if (word == "avx512_bf16" || word == "amx_bf16" || word == "bf16") return true;
    }
    return false;  // the first processor's line speaks for all
  }
  return false;
}

void check_precision(Precision precision, const c10::Device& device) {
  if (precision == Precision::kFp16 && !device.is_cuda()) {
    throw std::invalid_argument("--precision: fp16 needs --device cuda (CPU autocast runs bf16 only)");
  }
  if (precision == Precision::kBf16 && device.is_cpu() && !cpu_has_bf16_kernels()) {
    spdlog::warn(
        "--precision bf16: this CPU has no bf16 kernels (avx512_bf16, amx_bf16); bf16 is emulated and "
        "slower than fp32");
  }
}

AutocastState autocast_for(Precision precision, const c10::Device& device) {
  AutocastState state;
  if (precision == Precision::kFp32) return state;
  const auto dtype = precision == Precision::kBf16 ? c10::kBFloat16 : c10::kHalf;
  if (device.is_cuda()) {
    state.cuda_enabled = true;
    state.cuda_dtype = dtype;
  } else {
    state.cpu_enabled = true;
    state.cpu_dtype = dtype;
  }
  return state;
}

AutocastState current_autocast() {
  AutocastState state;
  state.cpu_enabled = autocast_enabled_on(c10::DeviceType::CPU);
  state.cuda_enabled = autocast_enabled_on(c10::DeviceType::CUDA);
#ifdef DLS_AUTOCAST_BY_DEVICE_TYPE
  state.cpu_dtype = at::autocast::get_autocast_dtype(c10::DeviceType::CPU);
  state.cuda_dtype = at::autocast::get_autocast_dtype(c10::DeviceType::CUDA);
#else
  state.cpu_dtype = at::autocast::get_autocast_cpu_dtype();
  state.cuda_dtype = at::autocast::get_autocast_gpu_dtype();
#endif
  return state;
}

bool autocast_active(const c10::Device& device) {
  return (device.is_cpu() || device.is_cuda()) && autocast_enabled_on(device.type());
}

c10::ScalarType autocast_dtype(const c10::Device& device) {
  const auto state = current_autocast();
  return device.is_cuda() ? state.cuda_dtype : state.cpu_dtype;
}

at::Tensor in_autocast_type(const at::Tensor& t) {
  return autocast_active(t.device()) ? t.to(autocast_dtype(t.device())) : t;
}

AutocastScope::AutocastScope(const AutocastState& state) : saved_(current_autocast()) {
  at::autocast::increment_nesting();
  set_autocast_state(state);
}

AutocastScope::~AutocastScope() {
  set_autocast_state(saved_);
  if (at::autocast::decrement_nesting() == 0) at::autocast::clear_cache();
}

}  // namespace dls::util

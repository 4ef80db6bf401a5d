#include "gpu_kernel_profile.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <torch/torch.h>
#include <torch/version.h>

// DLS_KINETO_API: set by bench/CMakeLists.txt where this file compiles with it (LibTorch
// 2.6's API does; 1.13's does not).
#if defined(DLS_KINETO_API)
#include <torch/csrc/autograd/profiler_kineto.h>
#endif

namespace dls::bench {

double busy_time(std::vector<std::pair<std::uint64_t, std::uint64_t>> intervals) {
  std::sort(intervals.begin(), intervals.end());
  double busy = 0;
  std::uint64_t covered = 0;  // the end of the union so far
  for (const auto& [start, end] : intervals) {
    const std::uint64_t from = std::max(start, covered);
    if (end > from) busy += static_cast<double>(end - from);
    covered = std::max(covered, end);
  }
  return busy;
}

#if defined(DLS_KINETO_API)
namespace {

struct KernelTotals {
  long calls = 0;
  double ns = 0;
};

void print_table(const std::map<std::string, KernelTotals>& kernels, double busy, double wall_ms, int steps, int rows,
                 std::FILE* out) {
  std::vector<std::pair<std::string, KernelTotals>> sorted(kernels.begin(), kernels.end());
  std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.second.ns > b.second.ns; });
  long calls = 0;
  for (const auto& [name, t] : sorted) calls += t.calls;
  std::fprintf(out,
               "GPU kernel profile: %d steps, per step %.3f ms wall, GPU busy %.3f ms (%.0f%%), %.1f kernels, copies "
               "and memsets\n",
               steps, wall_ms / steps, busy / 1e6 / steps, wall_ms > 0 ? 100 * busy / 1e6 / wall_ms : 0.0,
               static_cast<double>(calls) / steps);
  std::fprintf(out, "%-70s %10s %12s %7s\n", "kernel", "per step", "us per step", "busy %");
  const auto shown = std::min<std::size_t>(sorted.size(), static_cast<std::size_t>(std::max(rows, 0)));
  for (std::size_t i = 0; i < shown; ++i) {
    const auto& [name, t] = sorted[i];
    std::fprintf(out, "%-70.70s %10.1f %12.1f %6.1f%%\n", name.c_str(), static_cast<double>(t.calls) / steps,
                 t.ns / 1e3 / steps, busy > 0 ? 100 * t.ns / busy : 0.0);
  }
}

}  // namespace
#endif

void print_gpu_kernel_profile(const std::function<void()>& fn, int steps, int rows, std::FILE* out) {
#if defined(DLS_KINETO_API)
  namespace profiler = torch::autograd::profiler;
  using torch::profiler::impl::ActivityType;
  using torch::profiler::impl::ProfilerConfig;
  using torch::profiler::impl::ProfilerState;
  if (!torch::cuda::is_available()) throw std::runtime_error("--gpu-profile: no GPU is visible");
  const ProfilerConfig config(ProfilerState::KINETO);
  const std::set<ActivityType> activities{ActivityType::CPU, ActivityType::CUDA};
  std::unique_ptr<profiler::ProfilerResult> result;
  double wall_ms = 0;
  try {
    profiler::prepareProfiler(config, activities);
    profiler::enableProfiler(config, activities);
    torch::cuda::synchronize();
    const auto start = std::chrono::steady_clock::now();
    fn();
    torch::cuda::synchronize();
    wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    result = profiler::disableProfiler();
  } catch (const c10::Error& e) {
    throw std::runtime_error(std::string("--gpu-profile: LibTorch's Kineto profiler failed: ") +
                             e.what_without_backtrace());
  }
  std::map<std::string, KernelTotals> kernels;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> intervals;
  for (const auto& event : result->events()) {
    if (event.deviceType() != c10::DeviceType::CUDA || event.durationNs() == 0) continue;
    auto& totals = kernels[event.name()];
    ++totals.calls;
    totals.ns += static_cast<double>(event.durationNs());
    intervals.emplace_back(event.startNs(), event.endNs());
  }
  if (kernels.empty()) {
    throw std::runtime_error(
        "--gpu-profile: the profiler recorded no GPU activity (this LibTorch may lack Kineto's CUPTI tracing)");
  }
  print_table(kernels, busy_time(std::move(intervals)), wall_ms, steps, rows, out);
#else
  (void)fn, (void)steps, (void)rows, (void)out;
  throw std::runtime_error("--gpu-profile: this build has no Kineto profile (LibTorch " TORCH_VERSION
                           "'s profiler API is not the one bench/gpu_kernel_profile.cpp reads)");
#endif
}

}  // namespace dls::bench

#include "bench_measure.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>

#include <ATen/record_function.h>
#include <torch/torch.h>

#include "bench_profile.h"
#include "bench_tasks.h"
#include "gpu_kernel_profile.h"
#include "dls/layers/fused_attention.h"
#include "dls/layers/small_batched_matmul.h"
#include "dls/util/device.h"
#include "dls/util/operator_count.h"

namespace dls::bench {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

std::atomic<double> g_flops{0};

void add_flops(double flops) {
  double expected = g_flops.load();
  while (!g_flops.compare_exchange_weak(expected, expected + flops)) {
  }
}

// LibTorch's fused attention kernels (under at::scaled_dot_product_attention, fused_attention.h),
// counted as the products they stand for: forward Q K^T and P V (2 products), backward dP,
// dS K, dS^T Q and P^T dO (4); q [..., Lq, s], k [..., Lk, s], each product 2*batch*Lq*Lk*s.
// The math fallback dispatches its products as bmm, which the rule below counts instead.
// Inputs: forward (q, k, ...); backward (grad_out, q, k, ...).
int fused_attention_products(const char* name, int* query_input) {
  static const char* const kForward[] = {
      "aten::_scaled_dot_product_flash_attention", "aten::_scaled_dot_product_efficient_attention",
      "aten::_scaled_dot_product_cudnn_attention", "aten::_scaled_dot_product_flash_attention_for_cpu"};
  for (const char* forward : kForward) {
    const std::size_t n = std::strlen(forward);
    if (std::strncmp(name, forward, n) != 0) continue;
    if (name[n] == '\0') {
      *query_input = 0;
      return 2;
    }
    if (std::strcmp(name + n, "_backward") == 0) {
      *query_input = 1;
      return 4;
    }
  }
  return 0;
}

// The product's 2*m*n*k from the shapes of its inputs: mm(a [m,k], b [k,n]),
// addmm(c, a, b) (also in place, c.addmm_(a, b)), bmm(a [B,m,k], b [B,k,n]),
// baddbmm(c, a, b), dls::small_batched_matmul(a [...,m,k], b [...,k,n]). The out= variants
// carry the same names. The fused attention kernels as their products (above).
std::unique_ptr<at::ObserverContext> on_operator(const at::RecordFunction& fn) {
  const char* name = fn.name();
  if (name == nullptr) return nullptr;
  int query_input = 0;
  if (const int products = fused_attention_products(name, &query_input)) {
    const auto inputs = fn.inputs();
    if (inputs.size() < static_cast<std::size_t>(query_input + 2) || !inputs[query_input].isTensor() ||
        !inputs[query_input + 1].isTensor()) {
      return nullptr;
    }
    const auto q = inputs[query_input].toTensor().sizes();
    const auto k = inputs[query_input + 1].toTensor().sizes();
    double batch = 1;
    for (std::size_t d = 0; d + 2 < q.size(); ++d) batch *= static_cast<double>(q[d]);
    add_flops(products * 2 * batch * static_cast<double>(q[q.size() - 2]) * static_cast<double>(k[k.size() - 2]) *
              static_cast<double>(q.back()));
    return nullptr;
  }
  int first = -1;
  if (std::strcmp(name, "aten::mm") == 0 || std::strcmp(name, "aten::bmm") == 0 ||
      std::strcmp(name, "dls::small_batched_matmul") == 0) {
    first = 0;
  }
  if (std::strcmp(name, "aten::addmm") == 0 || std::strcmp(name, "aten::addmm_") == 0 ||
      std::strcmp(name, "aten::baddbmm") == 0) {
    first = 1;
  }
  if (first < 0) return nullptr;
  const auto inputs = fn.inputs();
  if (inputs.size() < static_cast<std::size_t>(first + 2)) return nullptr;
  const auto& a = inputs[first];
  const auto& b = inputs[first + 1];
  if (!a.isTensor() || !b.isTensor()) return nullptr;
  const auto as = a.toTensor().sizes();
  const auto bs = b.toTensor().sizes();
  double batch = 1;  // every leading dimension (small_batched_matmul takes [..., m, k])
  for (std::size_t d = 0; d + 2 < as.size(); ++d) batch *= static_cast<double>(as[d]);
  const double m = static_cast<double>(as[as.size() - 2]);
  const double k = static_cast<double>(as[as.size() - 1]);
  const double n = static_cast<double>(bs[bs.size() - 1]);
  add_flops(2 * batch * m * n * k);
  return nullptr;
}

}  // namespace

Timing time_steps(const std::function<void(int)>& step, int warmup, int repeats, int iters, double items_per_step,
                  const std::string& unit, const std::function<void()>& finish) {
  for (int i = 0; i < warmup; ++i) step(i);
  Timing t;
  std::vector<double> rss;
  for (int r = 0; r < repeats; ++r) {
    if (finish) finish();
    const auto start = Clock::now();
    for (int i = 0; i < iters; ++i) step(warmup + r * iters + i);
    if (finish) finish();
    const double seconds = seconds_since(start);
    t.rates.push_back(iters * items_per_step / seconds);
    rss.push_back(current_rss_mb());
    std::fprintf(stderr, "  repeat %d/%d: %.3f %s\n", r + 1, repeats, t.rates.back(), unit.c_str());
  }
  auto sorted = t.rates;
  std::sort(sorted.begin(), sorted.end());
  const std::size_t n = sorted.size();
  t.median = n % 2 == 1 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
  t.min = sorted.front();
  t.max = sorted.back();
  t.rss_growth_mb = rss.back() - rss.front();
  return t;
}

double count_matmul_flops(const std::function<void()>& fn) {
  g_flops = 0;
  util::with_global_callback(at::RecordFunctionCallback(&on_operator).needsInputs(true), fn);
  return g_flops.load();
}

double measure_gemm_gflops(int n, int repeats, bool cuda) {
  torch::NoGradGuard no_grad;
  const auto options = torch::TensorOptions().device(cuda ? torch::kCUDA : torch::kCPU);
  const auto a = torch::randn({n, n}, options);
  const auto b = torch::randn({n, n}, options);
  const auto finish = [cuda] {
    if (cuda) torch::cuda::synchronize();
  };
  // Warm-up for a quarter of a second, not one product: right after start-up the BLAS
  // threads and the CPU clock are still waking, and a single warm-up product left some
  // runs measuring half the rate (a step then read as 138 % of "GEMM").
  auto c = torch::mm(a, b);
  for (const auto start = Clock::now(); seconds_since(start) < 0.25;) {
    torch::mm_out(c, a, b);
    finish();
  }
  std::vector<double> rates;
  for (int r = 0; r < repeats; ++r) {
    const auto start = Clock::now();
    torch::mm_out(c, a, b);
    finish();
    rates.push_back(2.0 * n * n * static_cast<double>(n) / seconds_since(start) / 1e9);
  }
  std::sort(rates.begin(), rates.end());
  return rates[rates.size() / 2];
}

double current_rss_mb() {
  std::ifstream statm("/proc/self/statm");
  long pages = 0, resident = 0;
  statm >> pages >> resident;
  return static_cast<double>(resident) * static_cast<double>(::sysconf(_SC_PAGESIZE)) / (1024.0 * 1024.0);
}

double peak_rss_mb() {
  rusage usage{};
  ::getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;  // KiB on Linux
}

std::function<void(int)> finishing_on_device(std::function<void(int)> step, bool cuda) {
  if (!cuda) return step;
  return [step = std::move(step)](int i) {
    step(i);
    torch::cuda::synchronize();
  };
}

void measure_step(std::function<void(int)> step, const BenchOptions& options, std::int64_t batch, bool cuda,
                  BenchResult& result, const std::function<void()>& flops_step) {
  const auto items = static_cast<double>(batch);
  // On a GPU the rate is a training loop's: the host queues steps ahead of the GPU and waits
  // for it once per repeat, as the trainer does (it reads its losses back every few hundred
  // steps). The rate waiting after every step (a loop that reads the loss each step, and
  // PyTorch's anchor row "cuda_graph+sync") is measured beside it.
  std::function<void()> wait_for_device;
  if (cuda) wait_for_device = [] { torch::cuda::synchronize(); };
  result.timing = time_steps(step, options.warmup, options.repeats, options.iters, items, result.unit, wait_for_device);
  const auto queued = step;  // as timed: the host runs ahead of the GPU
  auto waited = finishing_on_device(std::move(step), cuda);
  if (cuda) {
    std::fprintf(stderr, "  waiting for the GPU after every step:\n");
    result.waiting_each_step = time_steps(waited, 0, options.repeats, options.iters, items, result.unit);
  }
  result.flops_per_item = count_matmul_flops([&] {
                            if (!flops_step) return waited(0);
                            flops_step();
                            if (cuda) torch::cuda::synchronize();
                          }) /
                          items;
  result.ops_per_step = count_operators([&] { waited(0); });
  if (options.profile_rows > 0) {
    print_operator_profile(
        [&] {
          for (int i = 0; i < options.iters; ++i) waited(i);
        },
        options.profile_rows);
  }
  if (options.gpu_profile_rows > 0) {
    print_gpu_kernel_profile(
        [&] {
          for (int i = 0; i < options.iters; ++i) queued(i);
        },
        options.iters, options.gpu_profile_rows);
  }
}

std::string attention_products(c10::Device device) {
  if (fused_attention_on(device)) return "scaled_dot_product_attention";
  return small_batched_matmul_on(device) ? "small_batched_matmul" : "matmul";
}

BenchPlacement place_model(torch::nn::Module& model, const BenchOptions& options) {
  const auto device = util::select_device(options.device);
  model.to(device);
  const auto precision = util::parse_precision(options.precision);
  util::check_precision(precision, device);
  return {device, util::autocast_for(precision, device)};
}

}  // namespace dls::bench

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
#include "dls/util/device.h"
#include "dls/util/operator_count.h"

namespace dls::bench {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

std::atomic<double> g_flops{0};

// The product's 2*m*n*k from the shapes of its inputs: mm(a [m,k], b [k,n]),
// addmm(c, a, b) (also in place, c.addmm_(a, b)), bmm(a [B,m,k], b [B,k,n]),
// baddbmm(c, a, b), dls::small_batched_matmul(a [...,m,k], b [...,k,n]). The out= variants
// carry the same names.
std::unique_ptr<at::ObserverContext> on_operator(const at::RecordFunction& fn) {
  const char* name = fn.name();
  if (name == nullptr) return nullptr;
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
  double expected = g_flops.load();
  while (!g_flops.compare_exchange_weak(expected, expected + 2 * batch * m * n * k)) {
  }
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
                  BenchResult& result) {
  const auto items = static_cast<double>(batch);
  // On a GPU the rate is a training loop's: the host queues steps ahead of the GPU and waits
  // for it once per repeat, as the trainer does (it reads its losses back every few hundred
  // steps). The rate waiting after every step (a loop that reads the loss each step, and
  // PyTorch's anchor row "cuda_graph+sync") is measured beside it.
  std::function<void()> wait_for_device;
  if (cuda) wait_for_device = [] { torch::cuda::synchronize(); };
  result.timing = time_steps(step, options.warmup, options.repeats, options.iters, items, result.unit, wait_for_device);
  auto waited = finishing_on_device(std::move(step), cuda);
  if (cuda) {
    std::fprintf(stderr, "  waiting for the GPU after every step:\n");
    result.waiting_each_step = time_steps(waited, 0, options.repeats, options.iters, items, result.unit);
  }
  result.flops_per_item = count_matmul_flops([&] { waited(0); }) / items;
  result.ops_per_step = count_operators([&] { waited(0); });
  if (options.profile_rows > 0) {
    print_operator_profile(
        [&] {
          for (int i = 0; i < options.iters; ++i) waited(i);
        },
        options.profile_rows);
  }
}

BenchPlacement place_model(torch::nn::Module& model, const BenchOptions& options) {
  const auto device = util::select_device(options.device);
  model.to(device);
  const auto precision = util::parse_precision(options.precision);
  util::check_precision(precision, device);
  return {device, util::autocast_for(precision, device)};
}

}  // namespace dls::bench

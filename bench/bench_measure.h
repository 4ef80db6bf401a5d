// Timing, FLOP counting and memory figures for dls_bench.
#pragma once

#include "dls/util/operator_count.h"

#include <functional>
#include <string>
#include <vector>

namespace dls::bench {

struct Timing {
  std::vector<double> rates;  // items per second, one per repeat
  double median = 0, min = 0, max = 0;
  double rss_growth_mb = 0;  // resident memory after the last repeat minus after the first
};

// Runs step(i) `warmup` times untimed, then `repeats` times `iters` steps, each repeat
// timed as a whole; rate = iters * items_per_step / seconds. `finish`, when given, runs
// before the clock starts and before it stops (on a GPU: the wait for the queued work).
// Progress on stderr.
Timing time_steps(const std::function<void(int)>& step, int warmup, int repeats, int iters, double items_per_step,
                  const std::string& unit, const std::function<void()>& finish = {});

// Floating-point operations of the matrix products (mm, addmm, bmm, baddbmm and
// dls::small_batched_matmul; convolutions' own products are not included) that `fn` runs,
// its backward pass included, counted from the shapes of every dispatched operator:
// 2*m*n*k per product. Elementwise
// work is not counted, so rates computed from it are matrix-product FLOP rates.
double count_matmul_flops(const std::function<void()>& fn);

// What a piece of work dispatches (util/operator_count.h).
using util::count_operators;
using util::OperatorCounts;

// The machine's float32 matrix-product rate: median GFLOP/s of an n x n x n product, on
// the CPU or (cuda = true) the current GPU.
double measure_gemm_gflops(int n = 1024, int repeats = 7, bool cuda = false);

// step, followed on CUDA by a wait for the GPU to finish it, so that time_steps times the
// work rather than its launch.
std::function<void(int)> finishing_on_device(std::function<void(int)> step, bool cuda);

double current_rss_mb();
double peak_rss_mb();  // the process's high-water mark

}  // namespace dls::bench

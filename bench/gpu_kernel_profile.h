// Where a GPU step's time goes, kernel by kernel (dls_bench --gpu-profile N): the question
// the step's operator count cannot answer once the step is one replayed CUDA graph.
#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
#include <utility>
#include <vector>

namespace dls::bench {

// Runs fn (`steps` steps on the GPU) under LibTorch's Kineto profiler, which records every
// kernel, copy and memset the GPU runs (those of replayed CUDA graphs included), and prints to
// `out`: the GPU's busy time per step against the wall time per step (the rest is the GPU
// waiting for the host), then the `rows` kernels with the most GPU time, with calls per step,
// microseconds per step and their share of the busy time (kernels that overlap on several
// streams can add past 100 %; every GPU-side event the profiler records counts, which for
// this project's C++ steps are kernels, copies and memsets). Kernel names are cut to 70
// characters. Needs a LibTorch whose Kineto API this file compiles with (bench/CMakeLists.txt
// checks: 2.6's does, 1.13's does not) and that was built with Kineto (PyTorch's CUDA wheels
// are); elsewhere throws std::runtime_error saying why.
void print_gpu_kernel_profile(const std::function<void()>& fn, int steps, int rows, std::FILE* out = stderr);

// The GPU's busy time from its events' [start, end) intervals: the length of their union (kernels
// on several streams may overlap; an idle gap counts nothing).
double busy_time(std::vector<std::pair<std::uint64_t, std::uint64_t>> intervals);

}  // namespace dls::bench

// What a piece of work dispatches, counted by LibTorch's RecordFunction callbacks: the lever
// that decides a launch-bound step (a GPU's, or a one-row CPU step's) is how many operators it
// runs, and this count is the same on every machine. dls_bench prints it for each task; a test
// pins the training step's (tests/train/step_operators_test.cpp).
#pragma once

#include <functional>

#include <ATen/record_function.h>

namespace dls::util {

// Every ATen operator (`aten_ops`: views, the operators that composite ones call, and
// dls::small_batched_matmul included), those not called from inside another operator
// (`top_level_ops`: what the model's code, autograd's backward formulas and the optimizer ask
// for), and the autograd nodes that backward runs (`autograd_nodes`).
struct OperatorCounts {
  long aten_ops = 0;
  long top_level_ops = 0;
  long autograd_nodes = 0;
};

// Counts what `fn` dispatches, on every thread (the chunks a batch is cut into run on threads
// of their own). Not reentrant: one count at a time.
OperatorCounts count_operators(const std::function<void()>& fn);

// Runs `fn` with `callback` registered for every thread, removed however `fn` ends.
void with_global_callback(at::RecordFunctionCallback callback, const std::function<void()>& fn);

}  // namespace dls::util

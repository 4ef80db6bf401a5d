// Where a benchmark's time goes, operator by operator: the "profile before changing
// anything" tool of dls_bench (--profile N).
#pragma once

#include <cstdio>
#include <functional>

namespace dls::bench {

// Runs fn once with every dispatched operator and autograd node timed, then prints to
// `out` the `rows` operators with the most self time (their own time, minus that of the
// operators they called), with calls, the calls made outside any other operator
// (util::count_operators' top-level ones: the column that shows which operators a change of
// the model's code adds or removes), self and total milliseconds and the share of all
// recorded self time. Chunks of a batch that run on several threads add their times, so
// the shares are of thread time, not of wall time.
void print_operator_profile(const std::function<void()>& fn, int rows, std::FILE* out = stderr);

}  // namespace dls::bench

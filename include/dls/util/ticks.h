// Axis ticks at "nice" values (1, 2 or 5 times a power of ten) and their labels.
#pragma once

#include <string>
#include <vector>

namespace dls::util {

// The smallest step of the form {1, 2, 5} x 10^k that puts at most `max_ticks` ticks in
// [lo, hi]. Throws std::invalid_argument unless lo < hi are finite and max_ticks >= 2.
double nice_step(double lo, double hi, int max_ticks);

// The multiples of nice_step(lo, hi, max_ticks) inside [lo, hi], ascending; values are
// rounded so that 0.1 * 3 comes out as 0.3. Throws std::invalid_argument for a span too
// narrow for doubles at its magnitude (100 to 100.00000000000004).
std::vector<double> nice_ticks(double lo, double hi, int max_ticks = 8);

// Ticks for a logarithmic axis, 0 < lo < hi: powers of ten (every n-th one when there are
// too many decades), with 2x and 5x added when they fit; linear nice_ticks when the range
// holds fewer than two such values.
std::vector<double> log_ticks(double lo, double hi, int max_ticks = 8);

// Label of a tick: as many decimals as the step needs ("0.25" with step 0.05, "3" with
// step 1), exponent form for very large or very small magnitudes ("1e-5", "2e6").
std::string format_tick(double value, double step);

// Shortest of the forms above for one value alone (log-axis labels): "0.01", "1e-5".
std::string format_tick(double value);

}  // namespace dls::util

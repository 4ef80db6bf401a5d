#include "bench_profile.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <ATen/record_function.h>

namespace dls::bench {

namespace {

using Clock = std::chrono::steady_clock;

struct Totals {
  long calls = 0;
  long top_level_calls = 0;  // not called from inside another operator (operator_count.h's count)
  double self_ms = 0, total_ms = 0;
};

std::mutex g_mutex;
std::map<std::string, Totals> g_totals;

struct Frame : at::ObserverContext {
  Clock::time_point start = Clock::now();
  double children_ms = 0;  // time of the operators this one called
  bool top_level = false;
};

// The operators running on this thread, innermost last, so that each one's time can be
// taken from its caller's self time.
thread_local std::vector<Frame*> t_stack;
thread_local int t_operator_depth = 0;  // ATen operators (not autograd nodes) running on this thread

std::unique_ptr<at::ObserverContext> on_start(const at::RecordFunction& fn) {
  auto frame = std::make_unique<Frame>();
  if (fn.scope() == at::RecordScope::FUNCTION) frame->top_level = t_operator_depth++ == 0;
  t_stack.push_back(frame.get());
  return frame;
}

void on_end(const at::RecordFunction& fn, at::ObserverContext* context) {
  auto* frame = static_cast<Frame*>(context);
  if (frame == nullptr) return;
  if (fn.scope() == at::RecordScope::FUNCTION) --t_operator_depth;
  const double ms = std::chrono::duration<double, std::milli>(Clock::now() - frame->start).count();
  // Pop this frame (ends come in the reverse order of starts on one thread).
  const auto it = std::find(t_stack.rbegin(), t_stack.rend(), frame);
  if (it != t_stack.rend()) t_stack.erase(std::next(it).base());
  if (!t_stack.empty()) t_stack.back()->children_ms += ms;
  const char* name = fn.name();
  std::lock_guard<std::mutex> lock(g_mutex);
  auto& totals = g_totals[name != nullptr ? name : "?"];
  ++totals.calls;
  totals.top_level_calls += static_cast<long>(frame->top_level);
  totals.self_ms += ms - frame->children_ms;
  totals.total_ms += ms;
}

}  // namespace

void print_operator_profile(const std::function<void()>& fn, int rows, std::FILE* out) {
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    g_totals.clear();
  }
  const auto handle = at::addGlobalCallback(at::RecordFunctionCallback(&on_start, &on_end));
  const auto start = Clock::now();
  try {
    fn();
  } catch (...) {
    at::removeCallback(handle);
    throw;
  }
  const double wall_ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  at::removeCallback(handle);

  std::vector<std::pair<std::string, Totals>> sorted(g_totals.begin(), g_totals.end());
  std::sort(sorted.begin(), sorted.end(),
            [](const auto& a, const auto& b) { return a.second.self_ms > b.second.self_ms; });
  double all_self = 0;
  for (const auto& [name, t] : sorted) all_self += t.self_ms;
  std::fprintf(out, "operator profile: %.1f ms wall, %.1f ms of recorded thread time\n", wall_ms, all_self);
  std::fprintf(out, "%-60s %8s %9s %10s %10s %7s\n", "operator", "calls", "top-level", "self ms", "total ms", "self %");
  const auto shown = std::min<std::size_t>(sorted.size(), static_cast<std::size_t>(std::max(rows, 0)));
  for (std::size_t i = 0; i < shown; ++i) {
    const auto& [name, t] = sorted[i];
    std::fprintf(out, "%-60.60s %8ld %9ld %10.2f %10.2f %6.1f%%\n", name.c_str(), t.calls, t.top_level_calls, t.self_ms,
                 t.total_ms, all_self > 0 ? 100 * t.self_ms / all_self : 0.0);
  }
}

}  // namespace dls::bench

#include "dls/util/operator_count.h"

#include <atomic>
#include <memory>

namespace dls::util {

namespace {

std::atomic<long> g_aten_ops{0}, g_top_level_ops{0}, g_autograd_nodes{0};
thread_local int t_operator_depth = 0;  // ATen operators running on this thread

std::unique_ptr<at::ObserverContext> on_counted_start(const at::RecordFunction& fn) {
  if (fn.scope() == at::RecordScope::BACKWARD_FUNCTION) {
    ++g_autograd_nodes;
    return nullptr;
  }
  ++g_aten_ops;
  if (t_operator_depth++ == 0) ++g_top_level_ops;
  return nullptr;
}

void on_counted_end(const at::RecordFunction& fn, at::ObserverContext*) {
  if (fn.scope() == at::RecordScope::FUNCTION) --t_operator_depth;
}

}  // namespace

void with_global_callback(at::RecordFunctionCallback callback, const std::function<void()>& fn) {
  const auto handle = at::addGlobalCallback(std::move(callback));
  try {
    fn();
  } catch (...) {
    at::removeCallback(handle);
    throw;
  }
  at::removeCallback(handle);
}

OperatorCounts count_operators(const std::function<void()>& fn) {
  g_aten_ops = 0;
  g_top_level_ops = 0;
  g_autograd_nodes = 0;
  with_global_callback(at::RecordFunctionCallback(&on_counted_start, &on_counted_end)
                           .scopes({at::RecordScope::FUNCTION, at::RecordScope::BACKWARD_FUNCTION}),
                       fn);
  return {g_aten_ops.load(), g_top_level_ops.load(), g_autograd_nodes.load()};
}

}  // namespace dls::util

#include "dls/util/parallel_chunks.h"

#include <algorithm>
#include <exception>
#include <thread>
#include <vector>

#include <ATen/Parallel.h>

#include "dls/util/precision.h"

namespace dls::util {

int effective_chunks(std::int64_t rows, int chunks) {
  return static_cast<int>(std::max<std::int64_t>(1, std::min<std::int64_t>(chunks, rows)));
}

void for_each_chunk(std::int64_t rows, int chunks,
                    const std::function<void(int chunk, std::int64_t begin, std::int64_t end)>& fn) {
  chunks = effective_chunks(rows, chunks);
  if (chunks == 1) {
    fn(0, 0, rows);
    return;
  }
  std::vector<std::exception_ptr> errors(static_cast<std::size_t>(chunks));
  // A new thread takes the process-wide thread count when it first runs an operator, and
  // at::set_num_threads in the chunks changes that count: keep ours to put it back.
  const int caller_threads = at::get_num_threads();
  // Autocast is per thread: the chunks run in the caller's precision.
  const auto autocast = current_autocast();
  std::vector<std::thread> threads;
  for (int k = 0; k < chunks; ++k) {
    threads.emplace_back([&, k] {
      try {
        at::set_num_threads(1);  // OpenMP's thread count is per thread: this one computes alone
        const AutocastScope precision(autocast);
        fn(k, k * rows / chunks, (k + 1) * rows / chunks);
      } catch (...) {
        errors[static_cast<std::size_t>(k)] = std::current_exception();
      }
    });
  }
  for (auto& t : threads) t.join();
  at::set_num_threads(caller_threads);
  for (const auto& e : errors) {
    if (e) std::rethrow_exception(e);
  }
}

ScopedIntraOpThreads::ScopedIntraOpThreads(int threads) : saved_(at::get_num_threads()) {
  at::set_num_threads(threads);
}

ScopedIntraOpThreads::~ScopedIntraOpThreads() { at::set_num_threads(saved_); }

}  // namespace dls::util

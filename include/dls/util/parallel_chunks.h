// Work on a batch cut into consecutive chunks, one thread per chunk, each thread with one
// intra-op thread. On a small CPU this beats one pass with several intra-op threads when
// the operators are too small to keep the threads busy: no OpenMP barrier per operator
// (bench/PERFORMANCE.md). Used by data-parallel training steps and by decoding.
#pragma once

#include <cstdint>
#include <functional>

namespace dls::util {

// Calls fn(k, begin, end) for the chunks k = 0..chunks-1 of the rows [0, rows), chunk k
// covering [k * rows / chunks, (k + 1) * rows / chunks). chunks is clamped to [1, rows];
// one chunk runs on the calling thread as it is. Otherwise every chunk runs on a thread of
// its own (thread-local state such as grad mode starts fresh there), all are joined, and
// the first exception thrown by a chunk is rethrown here.
void for_each_chunk(std::int64_t rows, int chunks,
                    const std::function<void(int chunk, std::int64_t begin, std::int64_t end)>& fn);

// The number of chunks for_each_chunk will use.
int effective_chunks(std::int64_t rows, int chunks);

// Sets this thread's intra-op thread count for the guard's lifetime. Code that runs chunks
// in a loop runs its own operators between them with one thread: an OpenMP team left on
// the calling thread keeps spinning after each operator and takes a core from the chunks'
// threads (measured: 1,421 against 1,739 images/s, ViT fashion preset).
class ScopedIntraOpThreads {
 public:
  explicit ScopedIntraOpThreads(int threads);
  ~ScopedIntraOpThreads();
  ScopedIntraOpThreads(const ScopedIntraOpThreads&) = delete;
  ScopedIntraOpThreads& operator=(const ScopedIntraOpThreads&) = delete;

 private:
  int saved_;
};

}  // namespace dls::util

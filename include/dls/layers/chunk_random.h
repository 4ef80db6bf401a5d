// Random draws of a training step whose batch is cut into chunks trained on threads of their
// own (train/parallel/split_batch.h). Dropout's masks and the RNN's teacher-forcing coin
// each take their randomness from the default CPU generator, which the chunks' threads would
// reach in whatever order they happen to run: the same command gave other losses, and a
// resume drew otherwise than the run it continued. Inside a ChunkRandomScope a thread draws
// from a stream of its own instead, a function of (the step's seed, the chunk, the draw's
// number in the chunk): the same draws however the threads are scheduled. The step's seed is
// one draw from the default generator, whose state a checkpoint saves.
#pragma once

#include <cstdint>

namespace dls {

// One 64-bit draw of the default CPU generator (random64), on the calling thread.
std::uint64_t default_generator_draw();

class ChunkRandomScope {
 public:
  // Until destroyed, this thread's draws come from chunk `chunk`'s stream of `step_seed`.
  ChunkRandomScope(std::uint64_t step_seed, int chunk);
  ~ChunkRandomScope();
  ChunkRandomScope(const ChunkRandomScope&) = delete;
  ChunkRandomScope& operator=(const ChunkRandomScope&) = delete;

 private:
  std::uint64_t previous_key_, previous_count_;
  bool previous_active_;
};

// A 64-bit seed: the thread's chunk stream in a scope, else default_generator_draw().
std::uint64_t draw_seed();

// Uniform in [0, 1): the chunk stream in a scope, else torch::rand({1}) of the default
// generator (as the RNN drew its teacher-forcing coin before chunks had streams).
double draw_uniform();

}  // namespace dls

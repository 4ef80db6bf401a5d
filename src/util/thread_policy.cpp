#include "dls/util/thread_policy.h"

#include <algorithm>

namespace dls::util {

int default_batch_chunks(bool flattened_layout, int threads) { return flattened_layout ? 1 : std::max(1, threads); }

int batch_chunk_workers(c10::Device device, int workers) { return device.is_cpu() ? std::max(1, workers) : 1; }

bool keeps_freed_memory(bool flattened_layout) { return flattened_layout; }

}  // namespace dls::util

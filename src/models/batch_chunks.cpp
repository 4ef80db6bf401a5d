#include "dls/models/batch_chunks.h"

#include <algorithm>

namespace dls {

int default_batch_chunks(Layout layout, int threads) { return layout == Layout::kDLStudio ? 1 : std::max(1, threads); }

int batch_chunk_workers(c10::Device device, int workers) { return device.is_cpu() ? std::max(1, workers) : 1; }

bool keeps_freed_memory(Layout layout) { return layout == Layout::kDLStudio; }

}  // namespace dls

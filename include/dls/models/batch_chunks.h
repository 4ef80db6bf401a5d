// How finely a model's batches are cut for data-parallel work on CPU threads, and whether
// its training keeps freed memory: properties of the layout, measured, shared by training
// (train/parallel/split_batch.h) and evaluation (decoding in chunks).
#pragma once

#include <c10/core/Device.h>

#include "dls/layers/transformer_config.h"

namespace dls {

// The default number of chunks of a training step or a decoded batch on `threads` CPU
// threads: one per thread, except for the dlstudio layout, whose flattened products are
// large enough to keep the intra-op threads busy and whose per-chunk gradients (282 M
// parameters in DLStudio's example) cost more to allocate and add up than the chunks save
// (measured on that config: training 7.0 pairs/s in one chunk, 4.9 in two; greedy
// decoding 22.9 and 19.8 sentences/s).
int default_batch_chunks(Layout layout, int threads);

// The concurrent batch chunks (one CPU thread each) a step or a decoded batch runs in on
// `device`: `workers` (at least one) on the CPU; one on any other device, whose kernels
// already spread one batch over the whole accelerator (chunks would only split its
// launches). The one place that decides it: training, evaluation and dls_bench ask here.
int batch_chunk_workers(c10::Device device, int workers);

// Whether training this layout should keep freed memory in the process
// (util::keep_freed_memory): yes for the dlstudio layout, whose gradients are gigabytes
// (7.9 -> 10.2 pairs/s on DLStudio's config); the vaswani cpu preset gains nothing
// measurable (93 against 97 pairs/s) and would hold ~70 MB more.
bool keeps_freed_memory(Layout layout);

}  // namespace dls

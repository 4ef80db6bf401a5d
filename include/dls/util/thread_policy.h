// How a step's or a decoded batch's work is spread over CPU threads, and whether a run keeps
// the memory it frees: the one place that decides it for training (train/parallel/
// split_batch.h, the loop), evaluation (decoding in chunks) and dls_bench. The model's part
// in the decision is one fact its config knows: whether its layout is DLStudio's flattened
// one (TransformerConfig::flattened()), whose products are large.
#pragma once

#include <c10/core/Device.h>

namespace dls::util {

// The default number of concurrent chunks of a training step or a decoded batch on
// `threads` CPU threads: one per thread, except for a flattened layout, whose products are
// large enough to keep the intra-op threads busy and whose per-chunk gradients (282 M
// parameters in DLStudio's example) cost more to allocate and add up than the chunks save
// (measured on that config: training 7.0 pairs/s in one chunk, 4.9 in two; greedy
// decoding 22.9 and 19.8 sentences/s).
int default_batch_chunks(bool flattened_layout, int threads);

// The concurrent batch chunks (one CPU thread each) a step or a decoded batch runs in on
// `device`: `workers` (at least one) on the CPU; one on any other device, whose kernels
// already spread one batch over the whole accelerator (chunks would only split its
// launches).
int batch_chunk_workers(c10::Device device, int workers);

// Whether training should keep freed memory in the process (keep_freed_memory(),
// util/runtime.h): yes for a flattened layout, whose gradients are gigabytes (7.9 -> 10.2
// pairs/s on DLStudio's config); the vaswani cpu preset gains nothing measurable (93
// against 97 pairs/s) and would hold ~70 MB more.
bool keeps_freed_memory(bool flattened_layout);

}  // namespace dls::util

// The data-parallel flags both training programs take, and their --json keys.
#pragma once

#include <CLI/CLI.hpp>

#include "dls/train/data_parallel.h"
#include "dls/util/json.h"

namespace dls::apps {

// --dist-backend, --dist-timeout, --accum-steps, --bucket-mb in `group`.
inline void add_parallel_flags(CLI::App& app, train::ParallelOptions& options, const std::string& group) {
  app.add_option("--dist-backend", options.backend,
                 "under torchrun (or RANK/WORLD_SIZE/MASTER_ADDR/MASTER_PORT): gloo, nccl or auto (NCCL for CUDA when "
                 "available)")
      ->capture_default_str()
      ->group(group)
      ->check(CLI::IsMember({"gloo", "nccl", "auto"}));
  app.add_option("--dist-timeout", options.timeout_s,
                 "seconds a rank waits for the others before the run ends with an error")
      ->capture_default_str()
      ->group(group)
      ->check(CLI::Range(1.0, 86400.0));
  app.add_option("--accum-steps", options.accum_steps,
                 "micro-batches per step (gradient accumulation): the same step in less memory")
      ->capture_default_str()
      ->group(group)
      ->check(CLI::Range(1, 4096));
  app.add_option("--bucket-mb", options.bucket_mb,
                 "MiB of gradients per all-reduce bucket, started while backward runs (as DDP's bucket_cap_mb); "
                 "0: one all-reduce after backward")
      ->capture_default_str()
      ->group(group)
      ->check(CLI::Range(0.0, 1e6));
}

// "world_size", "rank", "backend", "all_reduce_s" (mean per step).
inline void add_parallel_json(util::JsonWriter& json, const train::ParallelReport& report) {
  json.key("world_size")
      .value(static_cast<std::int64_t>(report.world_size))
      .key("rank")
      .value(static_cast<std::int64_t>(report.rank))
      .key("backend")
      .value(report.backend)
      .key("all_reduce_s")
      .value(report.all_reduce_s);
}

}  // namespace dls::apps

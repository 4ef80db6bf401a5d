// The data-parallel flags both training programs take, and their --json keys.
#pragma once

#include <functional>
#include <string>

#include <CLI/CLI.hpp>

#include "cli_overrides.h"
#include "dls/settings/run_settings.h"
#include "dls/train/parallel/data_parallel.h"
#include "dls/util/json.h"

namespace dls::apps {

// --dist-backend, --dist-timeout, --accum-steps, --bucket-mb in `group`, each changing one
// field of the program's RunSettings::parallel (found by `run`). Not in config.toml: how one
// invocation spreads the work, which the run's result does not depend on (config_file.h).
template <typename Settings>
void add_parallel_flags(CLI::App& app, Overrides<Settings>& overrides,
                        const std::function<settings::RunSettings&(Settings&)>& run, const std::string& group) {
  const auto parallel = [run](Settings& s) -> settings::ParallelSettings& { return run(s).parallel; };
  queue_change<std::string>(
      app, overrides, "--dist-backend",
      "under torchrun (or RANK/WORLD_SIZE/MASTER_ADDR/MASTER_PORT): gloo, nccl or auto (default; NCCL for CUDA when "
      "available)",
      [parallel](Settings& s, const std::string& v) { parallel(s).backend = v; })
      ->group(group)
      ->check(CLI::IsMember({"gloo", "nccl", "auto"}));
  queue_change<double>(app, overrides, "--dist-timeout",
                       "seconds a rank waits for the others before the run ends with an error (default 300)",
                       [parallel](Settings& s, const double& v) { parallel(s).timeout_s = v; })
      ->group(group)
      ->check(CLI::Range(1.0, 86400.0));
  queue_change<int>(app, overrides, "--accum-steps",
                    "micro-batches per step (gradient accumulation): the same step in less memory (default 1)",
                    [parallel](Settings& s, const int& v) { parallel(s).accum_steps = v; })
      ->group(group)
      ->check(CLI::Range(1, 4096));
  queue_change<double>(app, overrides, "--bucket-mb",
                       "MiB of gradients per all-reduce bucket, started while backward runs (as DDP's "
                       "bucket_cap_mb); 0: one all-reduce after backward (default 25)",
                       [parallel](Settings& s, const double& v) { parallel(s).bucket_mb = v; })
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

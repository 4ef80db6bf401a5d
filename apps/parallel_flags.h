// The data parallelism a trainer's --json line reports (its flags: settings/run_settings.h).
#pragma once

#include "dls/train/parallel/data_parallel.h"
#include "dls/util/json.h"

namespace dls::apps {

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

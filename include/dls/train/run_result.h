// What every trainer reports at the end of an invocation, whatever its task: the loop's
// result, the run's folder and the model's size. A task's result adds its own metrics and
// writes them first in its --json object.
#pragma once

#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "dls/train/loop_state.h"
#include "dls/train/parallel/data_parallel.h"
#include "dls/util/json.h"

namespace dls::train {

struct RunResult {
  double final_loss = NAN;               // mean training loss of the last (possibly partial) epoch
  std::int64_t epochs = 0;               // epochs completed in all
  std::int64_t iterations = 0;           // optimizer steps in all
  double wall_s = 0;                     // wall time of this invocation
  std::vector<std::string> checkpoints;  // written by this invocation
  std::int64_t parameters = 0;           // the whole model
  std::string stopped_by;                // "epochs", "max-iters", "time-limit", "patience" or "dry-run"
  std::string run_dir;
  ParallelReport parallel;             // world size, rank, backend, all-reduce time
  std::string training_step = "none";  // how the steps ran: "CUDA graphs", "eager", "eager (why)"; none: a dry run

  // Takes the loop's share: final loss, epochs, steps, wall time, checkpoints, why it stopped
  // and the data parallelism.
  void take(const LoopResult& done);
};

// One JSON object: the task's own fields (`task_fields` writes them), then final_loss, epochs,
// iterations, wall_s, parameters, stopped_by, precision, training_step, run_dir, world_size,
// rank, backend, all_reduce_s and checkpoints.
std::string run_result_json(const RunResult& result, const std::string& precision,
                            const std::function<void(util::JsonWriter&)>& task_fields);

}  // namespace dls::train
